// The view controller: owns the state, turns user actions and API calls into
// state changes, and redraws from engine answers. One render per committed
// change, and each render announces the new state once.

import { $, h, clear, setText, fmtDuration } from "./dom.js";
import { ask, askKept } from "./engine.js";
import { KeptAnswers } from "./keptanswers.js";
import { createState, snapshot, checkRange, agentKey, fitRange, PAGE_SIZE } from "./state.js";
import { renderTimeline, renderAxis } from "./timeline.js";
import { renderOverview } from "./overview.js";
import { renderInspector } from "./inspector.js";
import { MetricsSection } from "./metricview.js";
import { NsightSection } from "./nsightview.js";
import { renderServerLanes } from "./serverlanes.js";
import { renderWindowOverview } from "./windowoverview.js";
import { mountSlowRows } from "./slowrows.js";
import { mountRangeStats } from "./stats.js";

export class View {
  constructor(summary) {
    this.summary = summary;
    this.duration = summary.meta.duration;
    this.state = createState(this.duration);
    if (!this.availableTabs().includes(this.state.tab)) this.state.tab = this.availableTabs()[0];
    this.history = [];
    this.details = new KeptAnswers((id) => askKept("request", { id }));
    this.dragClick = false;
    this.searchTimer = null;
    this.metrics = null;
    this.metricsRendering = Promise.resolve();
    this.nsight = null; // the Nsight tracks, when the run has profiles (nsightview.js)
    this.detailsRendering = Promise.resolve();
    this.renders = 0; // counted so idle work can tell the view changed
    this.earlyChart = null; // the chart drawn before the engine loaded (firstchart.js)
    this.holdExtras = false; // see render
  }

  // ---- queries the page needs -------------------------------------------

  request(id) {
    return this.details.get(id).result;
  }

  // requestCopy is request(id) as a value the caller owns: the API hands
  // these out, so a script changing one changes nothing the page keeps.
  requestCopy(id) {
    return this.details.get(id).copy();
  }

  hasRequest(id) {
    try {
      this.request(id);
      return true;
    } catch {
      return false;
    }
  }

  availableTabs() {
    const nsys = this.summary.capabilities.nsight ? ["nsys"] : [];
    return this.summary.capabilities.requests ? ["request", ...nsys, "api"] : [...nsys, "api"];
  }

  // ---- state changes ------------------------------------------------------

  commitRange(from, to, { history = true } = {}) {
    [from, to] = checkRange(from, to, this.duration);
    const s = this.state;
    if (history && (from !== s.from || to !== s.to)) this.history.push([s.from, s.to]);
    s.from = from;
    s.to = to;
    this.showRequestPage();
    this.render();
  }

  back() {
    const prev = this.history.pop();
    if (!prev) return;
    this.state.from = prev[0];
    this.state.to = prev[1];
    this.showRequestPage();
    this.render();
  }

  selectRequest(id, { expand = false, fit = false, render = true } = {}) {
    const r = this.request(id); // throws "Unknown request" for unknown ids
    const s = this.state;
    if (s.search && !this.matchesSearch(r, s.search)) s.search = "";
    s.request = id;
    s.span = null;
    s.expandedSessions.add(r.session);
    s.expandedAgents.add(agentKey(r.session, r.agent));
    if (expand && r.lifecycle.available) s.expandedRequests.add(id);
    if (fit) [s.from, s.to] = fitRange(r.start, r.end, this.duration);
    this.showRequestPage();
    if (render) this.render();
    return r;
  }

  matchesSearch(r, search) {
    const q = search.trim().toLowerCase();
    return [r.id, r.session, r.agent, r.conversation, r.source_trace].some((v) => v !== null && v.toLowerCase().includes(q));
  }

  // showRequestPage moves the session pager to the selected request's
  // session. The render that follows every state change asks for that page
  // in the same question as its rows (the timeline's focus_page); a caller
  // that does not render settles the page at once (settlePage).
  showRequestPage() {
    this.pageFollowsFocus = this.state.request !== null;
  }

  // settlePage moves the pager as showRequestPage asked, if no render did.
  settlePage() {
    if (!this.pageFollowsFocus) return;
    this.pageFollowsFocus = false;
    const s = this.state;
    if (s.request === null) return;
    const t = ask("timeline", this.timelineArgs({ offset: 0, limit: 0 }));
    if (t.focus_index >= 0) s.page = Math.floor(t.focus_index / PAGE_SIZE);
  }

  timelineArgs(extra) {
    const s = this.state;
    return { from: s.from, to: s.to, search: s.search, sort: s.sort, expanded: [...s.expandedSessions], id: s.request ?? undefined, ...extra };
  }

  toggleLifecycle(id) {
    const e = this.state.expandedRequests;
    if (e.has(id)) e.delete(id);
    else if (this.request(id).lifecycle.available) e.add(id);
    this.render();
  }

  // findSpan looks a stage or activity id up in the selected request's lifecycle.
  findSpan(id) {
    const r = this.selected();
    if (!r) return null;
    const lc = r.lifecycle;
    return lc.stages.find((s) => s.id === id) || lc.activities.find((a) => a.id === id) || r.spans.find((sp) => sp.id === id) || null;
  }

  // nsysWorker is the worker whose Nsight report shows span: a progress
  // stage follows its source span; frontend spans are the frontend's.
  nsysWorker(span) {
    let src = span;
    if (span.kind === "progress") src = span.source_span_id ? this.findSpan(span.source_span_id) : null;
    if (!src) return null;
    return src.role === "frontend" ? "frontend" : src.worker || null;
  }

  selectSpan(id, { fit = false, render = true } = {}) {
    const span = this.findSpan(String(id));
    if (!span) throw new Error(`Unknown span ${JSON.stringify(id)} for the selected request`);
    this.state.span = span.id;
    if (fit) [this.state.from, this.state.to] = fitRange(span.start, span.end, this.duration);
    if (render) this.render();
    return span;
  }

  fitSpan() {
    const span = this.state.span === null ? null : this.findSpan(this.state.span);
    if (span) this.commitRange(...fitRange(span.start, Math.max(span.end, span.start + 1e-9), this.duration));
  }

  toggleSession(id) {
    const e = this.state.expandedSessions;
    e.has(id) ? e.delete(id) : e.add(id);
    this.render();
  }

  toggleAgent(key) {
    const e = this.state.expandedAgents;
    e.has(key) ? e.delete(key) : e.add(key);
    this.render();
  }

  collapseAll() {
    this.state.expandedSessions.clear();
    this.state.expandedAgents.clear();
    this.state.expandedRequests.clear();
    this.render();
  }

  setTab(tab) {
    if (this.availableTabs().includes(tab)) this.state.tab = tab;
    this.render();
  }

  setSearch(text) {
    this.state.search = text;
    this.state.page = 0;
    this.render();
  }

  setSort(sort) {
    this.state.sort = sort;
    this.state.page = 0;
    this.showRequestPage();
    this.render();
  }

  setPage(page) {
    this.state.page = Math.max(0, page);
    this.render();
  }

  fitRequest() {
    const r = this.selected();
    if (r) this.commitRange(...fitRange(r.start, r.end, this.duration));
  }

  fitTTFT() {
    const r = this.selected();
    if (!r || r.first === null) return;
    if (r.lifecycle.available) this.state.expandedRequests.add(r.id);
    this.commitRange(...fitRange(r.start, Math.max(r.first, r.start + 1e-9), this.duration));
  }

  // fitSession frames the selected request's whole session, subagents
  // included, whatever the current filters hide.
  fitSession() {
    const r = this.selected();
    if (!r) return;
    const list = ask("sessions", { session: r.session, limit: 1 });
    const sess = list.items[0];
    if (sess) this.commitRange(...fitRange(sess.start, sess.end, this.duration));
  }

  selected() {
    return this.state.request === null ? null : this.request(this.state.request);
  }

  pan(direction) {
    const w = this.state.to - this.state.from;
    let from = this.state.from + (direction * w) / 2;
    from = Math.min(Math.max(from, 0), this.duration - w);
    this.commitRange(from, from + w);
  }

  zoom(factor) {
    const { from, to } = this.state;
    const mid = (from + to) / 2;
    const w = Math.min((to - from) * factor, this.duration);
    let a = Math.max(0, mid - w / 2);
    let b = Math.min(this.duration, a + w);
    a = Math.max(0, b - w);
    if (b > a) this.commitRange(a, b);
  }

  consumeDragClick() {
    const was = this.dragClick;
    this.dragClick = false;
    return was;
  }

  // defaultRequest is the request the page opens on (the slowest by TTFT,
  // traced requests first); the inspector says so while it is selected.
  defaultRequest() {
    this.defaultId = ask("default_request", {});
    return this.defaultId;
  }

  // copyLink saves the view in the URL fragment and copies the whole URL.
  copyLink() {
    const url = `${location.href.split("#")[0]}#view=${encodeURIComponent(JSON.stringify(snapshot(this.state)))}`;
    history.replaceState(null, "", url);
    const note = (text) => {
      const cov = $("coverage");
      cov.hidden = false;
      cov.appendChild(h("div", { class: "flash" }, text));
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(
        () => note("View link copied."),
        () => note("Clipboard unavailable: the view link is in the address bar; or use Export selection."),
      );
    } else {
      note("Clipboard unavailable here: the view link is in the address bar; or use Export selection.");
    }
  }

  copyState() {
    const text = JSON.stringify(snapshot(this.state), null, 2);
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).catch(() => {});
  }

  async downloadExport() {
    const data = await this.api.exportSelection();
    const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    const a = h("a", { href: URL.createObjectURL(blob), download: `trace-${this.summary.meta.job}-selection.json` });
    document.body.appendChild(a);
    a.click();
    setTimeout(() => {
      URL.revokeObjectURL(a.href);
      a.remove();
    }, 0);
  }

  // ---- drawing ------------------------------------------------------------

  render() {
    this.renders++;
    const s = this.state;
    $("rangeFrom").value = s.from.toFixed(6).replace(/\.?0+$/, "");
    $("rangeTo").value = s.to.toFixed(6).replace(/\.?0+$/, "");
    $("rangeBack").disabled = this.history.length === 0;
    setText($("rangeSummary"), `${fmtDuration(s.to - s.from)} selected · all tracks aligned`);
    if (this.updateOverview) this.updateOverview();
    renderWindowOverview(this);
    if (this.summary.capabilities.requests) this.renderTracks();
    else renderServerLanes(this);
    this.settlePage(); // when no client lanes asked for the page
    // While a traced report's evidence scripts load (main.js), the slowest
    // rows, the range statistics and the metric charts wait for the render
    // at ready: the page's one thread goes to what the API needs first.
    const extras = !this.holdExtras;
    if (extras && this.updateSlowRows) this.updateSlowRows();
    if (extras && this.updateRangeStats) this.updateRangeStats();
    // The Nsight tab draws from what the tracks load: while they are shown
    // it is drawn once, when they land (renderNsight), not also before.
    const nsightLater = this.nsight && s.nsys && s.tab === "nsys";
    if (!nsightLater) renderInspector(this);
    if (extras && this.metrics) this.renderMetrics();
    if (this.nsight) this.renderNsight({ inspector: nsightLater });
    this.announce();
  }

  // renderNsight redraws the Nsight tracks, cancelling the loads of the
  // rendering before; whenDetailsReady() awaits the latest one, and the
  // inspector's Nsight tab is redrawn from what it loaded.
  // With inspector set, a frame that comes before the tracks land (their
  // chunks still loading) draws the tab at once from what is held.
  renderNsight({ inspector = false } = {}) {
    let landed = false;
    if (inspector) {
      requestAnimationFrame(() => {
        if (!landed && p === this.detailsRendering && this.state.tab === "nsys") renderInspector(this);
      });
    }
    const p = this.nsight.render().then(() => {
      landed = true;
      if (p !== this.detailsRendering) return;
      if (this.state.tab === "nsys") renderInspector(this);
      window.dispatchEvent(new CustomEvent("trace-explorer:details-ready", { detail: { profile: this.state.profile, nsys: this.state.nsys } }));
    });
    p.catch(() => {}); // failures are shown in the tracks and reported by whenDetailsReady
    this.detailsRendering = p;
  }

  // showNsight shows or hides the tracks, optionally choosing the report
  // or compare mode, and opens the Nsight tab.
  showNsight(on, { profile, compare } = {}) {
    const s = this.state;
    s.nsys = !!on;
    if (profile !== undefined) s.profile = profile;
    if (compare !== undefined) s.compareNsys = !!compare;
    if (on && s.profile === null) s.profile = this.nsight.current()?.id ?? null;
    if (on) s.tab = "nsys";
    this.render();
  }

  // inspectNsys opens a profile — by id, or the first usable one of the
  // worker (default "frontend") and rank — at the given range (no history
  // entry), and scrolls to its tracks. Unknown profiles are errors.
  inspectNsys({ worker, rank, profile, from, to, compare = false } = {}) {
    const ns = this.nsight;
    if (!ns) throw new Error("No Nsight report is in this run");
    let p;
    if (profile !== undefined && profile !== null) {
      p = ns.byId(Number(profile));
      if (!p) throw new Error(`Unknown Nsight profile ${JSON.stringify(profile)}`);
    } else {
      const w = worker ?? "frontend";
      p = ns.profileFor(String(w), rank);
      if (!p) throw new Error(`No Nsight report for worker ${w}${rank !== undefined && rank !== null ? ` rank ${rank}` : ""}`);
    }
    const s = this.state;
    if (from !== undefined || to !== undefined) [s.from, s.to] = checkRange(from ?? s.from, to ?? s.to, this.duration);
    s.profile = p.id;
    s.nsys = true;
    s.compareNsys = !!compare;
    s.tab = "nsys";
    this.showRequestPage();
    this.render();
    document.getElementById("nsightTracks").scrollIntoView({ block: "nearest" });
    return p;
  }

  // rehearseExpand draws the client lanes as expanding and fitting the
  // selected request would, then as they are, in one task: nothing is
  // painted between, and the lanes end as they began. The first expand
  // and fit after the page opened then runs code the browser has run
  // once (main.js, just before ready). It reports whether it drew.
  rehearseExpand() {
    const s = this.state;
    const id = s.request;
    if (!this.summary.capabilities.requests || id === null || s.expandedRequests.has(id)) return false;
    let r;
    try {
      r = this.request(id);
    } catch {
      return false; // the inspector already shows why it has no answer
    }
    if (!r.lifecycle.available) return false;
    // The lanes may move the pager (a page past the fitted range's end).
    const { from, to, page } = s;
    s.expandedRequests.add(id);
    [s.from, s.to] = fitRange(r.start, r.end, this.duration);
    try {
      this.renderTracks({ rehearsal: true });
      return true;
    } catch {
      return false; // a rehearsal never keeps the page from opening
    } finally {
      s.expandedRequests.delete(id);
      Object.assign(s, { from, to, page });
      this.renderTracks({ rehearsal: true });
    }
  }

  // rehearse asks the engine what a zoom to [from, to] would ask, drops
  // the answers, and redraws the current view unchanged (rehearse.js).
  rehearse(from, to) {
    if (this.summary.capabilities.requests) {
      ask("timeline", { ...this.timelineArgs({ offset: 0, limit: PAGE_SIZE }), from, to });
      this.renderTracks({ rehearsal: true });
    }
    if (this.metrics) this.metrics.rehearse(from, to);
  }

  announce() {
    window.dispatchEvent(new CustomEvent("trace-explorer:state", { detail: snapshot(this.state) }));
  }

  // renderMetrics redraws the metric cards; whenMetricsReady() awaits the
  // latest of these renderings and rejects when it failed.
  renderMetrics() {
    const p = this.metrics.render().then(() => {
      if (p === this.metricsRendering) window.dispatchEvent(new CustomEvent("trace-explorer:metrics-ready", { detail: { metric: this.state.metric } }));
    });
    p.catch(() => {}); // failures are shown on the card and reported by whenMetricsReady
    this.metricsRendering = p;
  }

  // renderTracks draws the client lanes. The form controls show the state
  // except while the user is typing a search not yet applied; a rehearsal
  // (background work) never touches them.
  renderTracks({ rehearsal = false } = {}) {
    const s = this.state;
    const follow = !rehearsal && this.pageFollowsFocus && s.request !== null;
    let t = ask("timeline", this.timelineArgs({ offset: s.page * PAGE_SIZE, limit: PAGE_SIZE, focus_page: follow || undefined }));
    if (follow) s.page = Math.floor(t.offset / PAGE_SIZE);
    if (!rehearsal) this.pageFollowsFocus = false;
    if (t.items.length === 0 && t.total > 0) {
      s.page = Math.floor((t.total - 1) / PAGE_SIZE);
      t = ask("timeline", this.timelineArgs({ offset: s.page * PAGE_SIZE, limit: PAGE_SIZE }));
    }
    if (!rehearsal) {
      if (!this.searchPending && $("requestSearch").value !== s.search) $("requestSearch").value = s.search;
      if ($("sessionSort").value !== s.sort) $("sessionSort").value = s.sort;
    }
    setText($("requestCount"), `${t.matching_requests.toLocaleString("en-US")} requests in range`);
    renderAxis(s);
    renderTimeline(this, t);
    const pager = $("pager");
    pager.hidden = t.total <= PAGE_SIZE;
    setText($("pageLabel"), t.total ? `Sessions ${t.offset + 1}–${t.offset + t.items.length} of ${t.total.toLocaleString("en-US")}` : "No sessions");
    $("prevPage").disabled = s.page === 0;
    $("nextPage").disabled = t.offset + t.items.length >= t.total;
  }

  renderChrome() {
    const m = this.summary.meta;
    const c = this.summary.counts;
    $("jobName").textContent = m.job;
    const phase = m.client_kind ? `${m.client_kind} client · ${m.phase} client phase` : "no client export · recorded source window";
    $("subtitle").textContent = `Run ${m.job} · ${phase} · ${c.workers} workers · origin ${m.start_utc}`;
    for (const id of ["legendTTFT", "legendOutput"]) $(id).hidden = !this.summary.capabilities.requests;
    const notes = [];
    const a = this.summary.audit;
    const imported = [
      c.requests && `${c.requests.toLocaleString("en-US")} clients`,
      c.sessions && `${c.sessions.toLocaleString("en-US")} sessions`,
      a.joined_spans && `${a.joined_spans.toLocaleString("en-US")} joined OTel spans`,
      a.unjoined_spans && `${a.unjoined_spans.toLocaleString("en-US")} unjoined server spans`,
      a.clients_with_lifecycle && `${a.clients_with_lifecycle.toLocaleString("en-US")} requests with a lifecycle`,
      c.metrics && `${c.metrics.toLocaleString("en-US")} metric series`,
      c.profiles && `${c.profiles.toLocaleString("en-US")} Nsight reports`,
      c.iterations && `${c.iterations.toLocaleString("en-US")} batch observations`,
    ].filter(Boolean);
    // The badge counts what the timeline can show: requests with a server
    // lifecycle, beside those merely joined to a server identity.
    const badge = $("joinBadge");
    const joinedClients = a.clients_with_server_identity || 0;
    const withLifecycle = a.clients_with_lifecycle || 0;
    badge.hidden = !joinedClients;
    badge.textContent = `${withLifecycle} / ${c.requests} client → server lifecycle${joinedClients !== withLifecycle ? ` (${joinedClients} joined)` : ""}`;
    badge.classList.toggle("warn", withLifecycle < c.requests);
    const cov = $("coverage");
    cov.hidden = false;
    clear(cov).appendChild(h("span", { id: "coverageNotice" }, imported.length ? `Imported: ${imported.join(" · ")}` : "Imported: no client, server or metric evidence"));
    for (const w of m.warnings) notes.push(w);
    if (notes.length) {
      cov.classList.add("warn");
      cov.appendChild(h("ul", null, notes.map((n) => h("li", null, n))));
    }
    $("footerInfo").textContent = `Origin ${m.start_utc} · ${c.sessions.toLocaleString("en-US")} sessions · ${c.workers} workers · ${(c.profiles || 0).toLocaleString("en-US")} Nsight reports`;
    $("legendActivity").hidden = !this.summary.capabilities.request_breakdown;
    $("timelineControls").hidden = !this.summary.capabilities.requests;
    // #clientTracks exists only when the run has client requests (page-compat.md).
    if (!this.summary.capabilities.requests) $("clientTracks")?.remove();
    // The note is for a run whose timeline draws nothing: client requests,
    // server lanes (serverlanes.js hides it) and Nsight tracks are tracks.
    $("emptyTimeline").hidden = this.summary.capabilities.requests || this.summary.capabilities.nsight;
    this.updateOverview = renderOverview(this, ask("overview", {}));
    if (this.summary.capabilities.nsight && !this.nsight) this.nsight = new NsightSection(this);
    $("legendNsight").hidden = !this.nsight;
    if (this.summary.capabilities.requests && !this.updateSlowRows) {
      this.updateSlowRows = mountSlowRows(this);
      this.updateRangeStats = mountRangeStats(this);
    }
    if ((this.summary.capabilities.metrics || this.summary.capabilities.derived_metrics) && !this.metrics) {
      this.metrics = new MetricsSection(this, this.earlyChart);
      this.state.metric = this.metrics.defaultName;
    }
  }
}
