// window.traceExplorer, browser API 3.1. Synchronous methods answer from the
// engine already in memory; methods that may load data return promises.
// Every answer is a fresh copy: callers can never alias the page's state.

// Arguments go to the engine as given; it checks them against its op table
// and fills its defaults. Two rules of the reference page stay here:
// queryRequests' own default page of 50, and clamping a list's limit into
// the engine's bounds where the CLI refuses it (reference §8, §10). The
// bounds are read from the engine's table, not written here.

import { ask, opArg } from "./engine.js";
import { snapshot, checkRange, agentKey, LIFECYCLE_VIEWS } from "./state.js";
import { queryMetrics, queryAllMetrics, metricArgs, metricDataStatus } from "./metricdata.js";
import { askDetail, browserNsys, detailDataStatus } from "./nsightdata.js";
import { perfettoBytes } from "./perfetto.js";
import { rangeStats, statsArgs } from "./stats.js";

const REQUESTS_PAGE = 50;

// clampLimit truncates a numeric limit above op's declared bound to it;
// anything else (a negative page too) goes to the engine as given, for it to
// refuse as every other method does.
const clampLimit = (op, v) => {
  const n = v === undefined || v === null ? NaN : Number(v);
  if (!Number.isFinite(n) || n < opArg(op, "limit").min) return v;
  const a = opArg(op, "limit");
  return Math.min(Math.max(Math.trunc(n), a.min), a.max);
};


export function createAPI(view) {
  const s = () => view.state;
  const rangeArgs = (o) => ({ from: o.from ?? s().from, to: o.to ?? s().to });

  const api = {
    version: "3.1",
    ready: true,

    describe() {
      const sum = ask("summary", {});
      return { schema: sum.schema, meta: sum.meta, audit: sum.audit, available: sum.capabilities, capabilities: METHODS.slice() };
    },

    getState() {
      return snapshot(s());
    },

    setState(v) {
      restore(view, v);
      view.metrics?.remountAll();
      view.render();
      return snapshot(s());
    },

    selectRange(from, to) {
      view.commitRange(from, to);
      return snapshot(s());
    },

    selectRequest(id, opts = {}) {
      view.selectRequest(String(id), { expand: !!opts.expand, fit: !!opts.fit });
      return view.requestCopy(String(id));
    },

    expandRequest(id, expanded = true) {
      view.selectRequest(String(id), { render: false });
      // Expansion needs a lifecycle; requests without one stay unexpanded.
      const lc = view.request(String(id)).lifecycle;
      if (expanded && lc.available) s().expandedRequests.add(String(id));
      else s().expandedRequests.delete(String(id));
      view.render();
      return snapshot(s());
    },

    queryRequests(o = {}) {
      return ask("requests", {
        ...rangeArgs(o),
        session: o.session,
        agent: o.agent,
        worker: o.worker,
        min_ttft_ms: o.minTTFT ?? o.min_ttft_ms,
        search: o.search,
        offset: o.offset,
        limit: clampLimit("requests", o.limit === undefined ? REQUESTS_PAGE : o.limit),
      });
    },

    listSessions(o = {}) {
      const st = s();
      const page = ask("sessions", { from: st.from, to: st.to, search: st.search, sort: st.sort, offset: o.offset, limit: clampLimit("sessions", o.limit) });
      return { total: page.total, offset: page.offset, limit: page.limit, items: page.items };
    },

    getRequest(id) {
      return view.requestCopy(String(id));
    },

    getLifecycle(id) {
      return ask("lifecycle", { id: String(id) });
    },

    selectSpan(id, opts = {}) {
      if (opts.nsys) {
        // Follows a stage to its source span, fits it, and opens that
        // worker's report; the tracks load behind whenDetailsReady().
        const span = view.findSpan(String(id));
        if (!span) throw new Error(`Unknown span ${JSON.stringify(id)} for the selected request`);
        if (span.kind === "progress" && !span.source_span_id) throw new Error(`Stage ${span.id} has no source span to follow into Nsight`);
        const worker = view.nsysWorker(span);
        if (!worker) throw new Error(`Span ${span.id} has no recorded worker to open in Nsight`);
        view.selectSpan(span.id, { fit: true, render: false });
        view.inspectNsys({ worker });
        return snapshot(s());
      }
      view.selectSpan(id, { fit: !!opts.fit });
      return snapshot(s());
    },

    getSource(id) {
      return ask("source", { id: String(id) });
    },

    queryServerSpans(o = {}) {
      return ask("server_spans", { ...rangeArgs(o), offset: o.offset, limit: clampLimit("server_spans", o.limit) });
    },

    // queryIterations answers from the core the engine already holds, so it
    // is synchronous. Unlike the other lists its offset and limit are not
    // clamped: outside 0..1000 or not an integer is an error (reference §8).
    queryIterations(o = {}) {
      const rank = o.rank === undefined || o.rank === null ? undefined : String(o.rank);
      return ask("iterations", { ...rangeArgs(o), worker: o.worker, rank, offset: o.offset, limit: o.limit });
    },

    listMetricFamilies() {
      return ask("metric_families", {}).items;
    },

    // The metric lists answer as the reference does: an array of every
    // matching series, no page (internal/query/pagemetrics.go).
    listMetricSeries(o = {}) {
      const a = metricArgs(o);
      return ask("page_metric_series", { worker: a.worker, host: a.host, gpu: a.gpu, rank: a.rank, name: a.name, limit: clampLimit("metric_series", o.limit) });
    },

    async queryMetrics(o = {}) {
      return queryAllMetrics(metricArgs({ ...o, ...rangeArgs(o) }));
    },

    metricDataStatus() {
      return metricDataStatus();
    },

    // rangeStats answers as `dsight query REPORT stats` does, over the
    // view's range unless from/to are given: the requests and every metric
    // series (or those of name, worker, or the ids given), exactly.
    async rangeStats(o = {}) {
      return rangeStats(statsArgs({ ...o, ...rangeArgs(o) }));
    },

    // Nsight: one engine answers the page and the CLI (kinds profiles,
    // nsys, cpu); only the NVTX row's thread id is renamed (globalTid).
    listProfiles() {
      return ask("profiles", { limit: opArg("profiles", "limit").max }).items;
    },

    async queryNsys(o = {}) {
      const str = (v) => (v === undefined || v === null ? undefined : String(v));
      const profile = o.profile ?? s().profile ?? undefined;
      return browserNsys(await askDetail("nsys", { ...rangeArgs(o), profile, worker: str(o.worker), rank: str(o.rank), name: o.name || undefined, offset: o.offset, limit: clampLimit("nsys", o.limit ?? 100) }));
    },

    async queryCpu(o = {}) {
      const str = (v) => (v === undefined || v === null ? undefined : String(v));
      const profile = o.profile ?? s().profile ?? undefined;
      return askDetail("cpu", { ...rangeArgs(o), profile, worker: str(o.worker), rank: str(o.rank), limit: clampLimit("cpu", o.limit ?? 30) });
    },

    detailDataStatus() {
      return detailDataStatus();
    },

    // inspectNsys opens a report at a range (reference §8) and answers
    // queryNsys for it once its tracks are drawn.
    async inspectNsys(o = {}) {
      const p = view.inspectNsys(o);
      await api.whenDetailsReady();
      return api.queryNsys({ profile: p.id });
    },

    // listWorkers lists the server workers: role, engine, hosts (host null
    // when several), process epochs, log files, rank scopes and the
    // evidence that names each; the "workers" kind of the CLI.
    listWorkers(o = {}) {
      return ask("workers", { worker: o.worker, role: o.role, limit: opArg("workers", "limit").max }).items;
    },

    // query asks one public kind with the engine's own arguments (snake
    // case, as `dsight help KIND` lists them) and resolves to the engine's
    // answer unchanged: the JSON `dsight query REPORT KIND` prints. It
    // loads the shards metrics and Nsight answers need first. Internal
    // kinds are refused like unknown ones.
    async query(kind, args = {}) {
      const op = ask("ops", {}).find((o) => o.name === kind);
      if (!op || op.internal) {
        const err = new Error(`unknown query kind ${JSON.stringify(kind)}`);
        err.code = "bad_args";
        throw err;
      }
      if (kind === "metrics") return queryMetrics(args);
      if (kind === "stats") return rangeStats(args);
      if (kind === "nsys" || kind === "cpu") return askDetail(kind, args);
      return ask(kind, args);
    },

    // whenDetailsReady awaits the latest Nsight rendering, as
    // whenMetricsReady does for charts; with no Nsight view drawn it
    // resolves at once.
    async whenDetailsReady() {
      for (;;) {
        const p = view.detailsRendering;
        await p;
        if (p === view.detailsRendering) return;
      }
    },

    // whenMetricsReady awaits the latest chart rendering, looping until no
    // newer one replaced it; it rejects when that rendering failed.
    async whenMetricsReady() {
      for (;;) {
        const p = view.metricsRendering;
        await p;
        if (p === view.metricsRendering) return;
      }
    },

    // exportPerfetto resolves to the bytes of the whole run as a Perfetto
    // trace: what the Download Perfetto button saves and `dsight export
    // perfetto` writes.
    exportPerfetto() {
      return perfettoBytes();
    },

    async exportSelection() {
      const captured = snapshot(s()); // later changes must not alter the export
      const sum = ask("summary", {});
      const request = captured.request === null ? null : view.requestCopy(captured.request);
      const visible = ask("requests", { from: captured.from, to: captured.to, search: captured.search, limit: 0 });
      const sources = ask("sources", { limit: 1000 });
      return {
        schema: sum.schema,
        job: sum.meta.job,
        origin_ns: sum.meta.origin_ns,
        view: captured,
        request,
        visible_request_count: visible.total,
        server_spans: ask("server_spans", { from: captured.from, to: captured.to, limit: 100 }),
        batch_observations: ask("iterations", { from: captured.from, to: captured.to, limit: 1000 }),
        profile: captured.nsys && captured.profile !== null ? await api.queryNsys({ profile: captured.profile, from: captured.from, to: captured.to, limit: 200 }) : null,
        limitations: sum.meta.limitations,
        warnings: sum.meta.warnings,
        audit: sum.audit,
        sources: sources.items,
        metrics: sum.capabilities.metrics || sum.capabilities.derived_metrics ? await queryAllMetrics({ from: captured.from, to: captured.to }) : [],
      };
    },
  };
  const METHODS = Object.keys(api).filter((k) => typeof api[k] === "function");
  return Object.freeze(api);
}

// restore applies a saved state by the v3.1 rules: validate the range, drop
// unknown requests, keep only known keys, never alias the input.
function restore(view, v) {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("setState needs a state object");
  const st = view.state;
  const from = v.from ?? st.from;
  const to = v.to ?? st.to;
  checkRange(from, to, view.duration);
  const next = { from, to };
  // An unknown request throws, as selectRequest does (page-compat.md).
  if ("request" in v && v.request !== null && v.request !== undefined && !view.hasRequest(String(v.request))) throw new Error(`Unknown request ${v.request}`);
  if ("request" in v) next.request = v.request === null || v.request === undefined ? null : String(v.request);
  for (const k of ["page", "search", "sort", "cursor", "nsys", "hardware", "compareNsys", "metric", "span"]) if (k in v) next[k] = v[k];
  const sorts = opArg("timeline", "sort").enum;
  if (next.sort !== undefined && !sorts.includes(next.sort)) throw new Error(`sort must be ${sorts.join(", ")}; got ${next.sort}`);
  if (next.page !== undefined && !(Number.isInteger(next.page) && next.page >= 0)) throw new Error(`page must be a whole number; got ${next.page}`);
  if (next.search !== undefined && typeof next.search !== "string") throw new Error("search must be a string");
  Object.assign(st, next);
  if ("tab" in v && view.availableTabs().includes(v.tab)) st.tab = v.tab;
  if (LIFECYCLE_VIEWS.includes(v.lifecycleView)) st.lifecycleView = v.lifecycleView;
  if (Array.isArray(v.expandedSessions)) st.expandedSessions = new Set(v.expandedSessions.map(String));
  if (Array.isArray(v.expandedAgents)) st.expandedAgents = new Set(v.expandedAgents.map(String));
  if (Array.isArray(v.expandedRequests)) st.expandedRequests = new Set(v.expandedRequests.map(String).filter((id) => view.hasRequest(id) && view.request(id).lifecycle.available));
  if (v.metricCharts && typeof v.metricCharts === "object" && !Array.isArray(v.metricCharts)) st.metricCharts = cleanCharts(v.metricCharts);
  const metrics = view.metrics;
  if (Array.isArray(v.pinnedMetrics)) st.pinnedMetrics = metrics ? [...new Set(v.pinnedMetrics.filter((n) => typeof n === "string" && metrics.known(n)))] : [];
  const keepSpan = "span" in v ? v.span : st.span;
  st.span = null;
  // A saved report is kept only when it exists and is usable; without
  // Nsight the tracks stay hidden.
  const ns = view.nsight;
  const prof = ns && "profile" in v && v.profile !== null ? ns.byId(Number(v.profile)) : null;
  st.profile = prof && ns.usable(prof) ? prof.id : ns && !("profile" in v) ? st.profile : null;
  st.nsys = !!ns && !!st.nsys;
  st.compareNsys = !!ns && !!st.compareNsys;
  st.hardware = false;
  st.metric = metrics && typeof st.metric === "string" && metrics.known(st.metric) ? st.metric : metrics ? metrics.defaultName : null;
  if (st.request !== null) {
    const r = view.request(st.request);
    st.expandedSessions.add(r.session);
    st.expandedAgents.add(agentKey(r.session, r.agent));
    if (keepSpan !== null && keepSpan !== undefined && view.findSpan(String(keepSpan))) st.span = String(keepSpan);
  }
}

// cleanCharts keeps each chart's hidden series ids, as strings; legacy keys
// (ids, filters) are dropped.
function cleanCharts(charts) {
  const out = {};
  for (const [key, entry] of Object.entries(charts)) {
    if (!entry || typeof entry !== "object") continue;
    out[key] = { hidden: Array.isArray(entry.hidden) ? [...new Set(entry.hidden.map(String))] : [] };
  }
  return out;
}
