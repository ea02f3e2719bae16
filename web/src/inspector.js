// The inspector: the selected request's recorded evidence, and the Agent API
// tab with runnable examples for the sources this report has.

import { h, clear, setText, fmtMs, fmtInt, fmtSeconds } from "./dom.js";
import { nsightTab } from "./nsightpanel.js";
import { morph } from "./morph.js";

export function renderInspector(view) {
  const { state } = view;
  const tabs = view.availableTabs().map((t) =>
    h("button", { type: "button", role: "tab", class: "tab", "aria-selected": state.tab === t ? "true" : "false", dataset: { tab: t }, onclick: () => view.setTab(t) }, t === "request" ? "Request" : t === "nsys" ? "Nsight" : "Agent API"),
  );
  replaceIfChanged(document.getElementById("inspectorTabs"), tabs);
  setText(document.getElementById("inspectorTitle"), view.summary.counts.requests ? "Request & execution path" : "Captured evidence");
  const body = document.getElementById("inspectorBody");
  // The Nsight and Request tabs change a few numbers a zoom or a
  // selection (their handlers read the state when they run): morphed, the
  // rest of them is never laid out again.
  if (state.tab === "nsys") morph(body, [nsightTab(view)]);
  else if (state.tab === "request") morph(body, [requestTab(view)]);
  else replaceIfChanged(body, [apiTab(view)]);
}

// replaceIfChanged gives box the nodes as its children unless it already
// has equal ones. The inspector is rendered on every zoom, and mostly shows
// the same thing: keeping its elements spares their style and layout.
// (Equal nodes built for the same state carry equivalent handlers.)
function replaceIfChanged(box, nodes) {
  const same = box.childNodes.length === nodes.length && nodes.every((n, i) => n.isEqualNode(box.childNodes[i]));
  if (!same) box.replaceChildren(...nodes);
}

function requestTab(view) {
  const id = view.state.request;
  if (id === null) return h("p", { class: "muted" }, "Select a request bar to see its recorded timing and evidence.");
  let r;
  try {
    r = view.request(id);
  } catch (err) {
    // Its evidence shard is damaged (a content hash mismatch naming the
    // file): the page still opens, and says so where the request would be.
    return h("div", { class: "request-detail" }, h("h3", { class: "request-id", title: id }, id), h("p", { class: "error-inline request-error" }, `This request's server evidence cannot be read: ${err.message}`));
  }
  const agentLabel = r.client_kind === "agentperf" ? "client" : r.depth === 0 ? "main agent" : "subagent";
  const stats = [
    ["Client TTFT", fmtMs(r.ttft_ms)],
    ["Request duration", `${(r.end - r.start).toFixed(3)} s`],
    ["Input tokens", fmtInt(r.input_tokens)],
    ["Output tokens", fmtInt(r.output_tokens)],
    ["Cached tokens", fmtInt(r.cached_tokens)],
    ["Status", r.error ? `${r.status}: ${r.error}` : r.status],
    ["Phase", r.phase === null ? "unclassified (not recorded)" : r.phase],
    ["Timing source", r.timing_quality || "client export"],
    ["Start", fmtSeconds(r.start)],
    ["First token", r.first === null ? "not recorded" : fmtSeconds(r.first)],
    ["End", fmtSeconds(r.end)],
  ];
  const ev = r.evidence;
  const box = h(
    "div",
    { class: "request-detail" },
    h("p", { class: "crumbs" }, h("span", { title: r.session }, r.session), " / ", h("span", { title: r.agent }, `${agentLabel} ${r.agent}`), " / ", r.turn === null ? "turn unknown" : `turn ${r.turn}`),
    h("h3", { class: "request-id", title: r.id }, r.id),
    view.defaultId === id ? h("p", { class: "muted default-note", id: "defaultNote" }, "Opened on the slowest request by TTFT, traced requests first (the default selection).") : null,
    h(
      "div",
      { class: "actions" },
      h("button", { id: "fitSession", type: "button", onclick: () => view.fitSession() }, "Fit Session"),
      h("button", { id: "fitRequest", type: "button", onclick: () => view.fitRequest() }, "Fit request"),
      h("button", { id: "fitTTFT", type: "button", disabled: r.first === null, onclick: () => view.fitTTFT() }, "Fit TTFT"),
      r.lifecycle.available
        ? h("button", { id: "expandTTFT", type: "button", onclick: () => view.state.request !== null && view.toggleLifecycle(view.state.request) }, view.state.expandedRequests.has(r.id) ? "Collapse lifecycle" : "Expand lifecycle")
        : null,
    ),
    h("dl", { class: "stats" }, stats.map(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
    h("p", { class: "evidence" }, "Evidence: ", h("code", { title: `source ${ev.source}` }, `${ev.path}:${ev.line}`)),
  );
  for (const [label, e] of [["Identity", r.identity_evidence], ["Cache usage", r.cache_usage_evidence], ["Phase", r.phase_evidence]]) {
    if (e && (e.source !== ev.source || e.line !== ev.line)) box.appendChild(h("p", { class: "evidence" }, `${label} evidence: `, h("code", { title: `source ${e.source}` }, `${e.path}:${e.line}`)));
  }
  if (r.conversation !== null) box.appendChild(h("p", { class: "muted small" }, "Conversation ", h("code", null, r.conversation)));
  if (r.parent !== null) box.appendChild(h("p", { class: "muted small" }, "Parent agent ", h("code", null, r.parent)));
  if (r.issues.length) box.appendChild(h("ul", { class: "issues" }, r.issues.map((i) => h("li", null, i))));
  const span = view.state.span === null ? null : view.findSpan(view.state.span);
  if (span) box.appendChild(phaseFocus(view, span));
  const lc = r.lifecycle;
  if (lc.available) {
    box.appendChild(h("h4", null, "Progress milestones"));
    box.appendChild(h("ol", { class: "milestones" }, lc.milestones.map((m) => h("li", null, `${m.label} · ${m.time.toFixed(6)} s`))));
    if (lc.issues.length) box.appendChild(h("ul", { class: "issues" }, lc.issues.map((i) => h("li", null, i))));
  } else if (r.evidence_pending) {
    box.appendChild(h("p", { class: "muted small evidence-pending" }, "Loading this request's server evidence (spans, bindings, lifecycle)…"));
  } else {
    box.appendChild(h("p", { class: "muted small" }, r.spans.length ? "Server spans are joined, but none forms a supported lifecycle; the bar shows client timing." : "No server-side lifecycle evidence is joined to this request; the bar shows client timing only."));
  }
  if (r.workers.length || r.server_ids.length) box.appendChild(requestPath(view, r));
  return box;
}

// phaseFocus describes the selected stage or span with its boundaries.
function phaseFocus(view, span) {
  const isStage = span.kind === "progress";
  const elapsed = ((span.end - span.start) * 1000).toFixed(3);
  const ev = (e) => (e ? h("code", null, `${e.path}:${e.line}${e.ordinal !== undefined && e.ordinal !== null ? ` #${e.ordinal}` : ""}`) : "not recorded");
  return h(
    "div",
    { class: "phase-focus" },
    h("h4", null, span.label || span.name),
    h("p", null, isStage ? `${elapsed} ms between milestones` : `${elapsed} ms recorded elapsed`, " · ", `role ${span.role || "unknown"}`, span.host ? ` · host ${span.host}` : ""),
    span.description ? h("p", { class: "muted small" }, span.description) : null,
    isStage ? h("p", { class: "small" }, "From ", h("b", null, span.from_boundary.label), " ", ev(span.from_boundary.evidence), h("br"), "to ", h("b", null, span.to_boundary.label), " ", ev(span.to_boundary.evidence)) : h("p", { class: "small" }, "Evidence ", ev(span.evidence), span.worker ? ` · worker ${span.worker} (${span.worker_basis})` : ""),
    span.routing_context ? h("p", { class: "small" }, `Routing: ${span.routing_context.phase} · ${span.routing_context.basis}`) : null,
    h("div", { class: "actions" }, h("button", { type: "button", onclick: () => view.fitSpan() }, "Fit phase"), nsightPhaseButton(view, span)),
  );
}

// requestPath shows which workers did the work and how the client request
// was bridged to them.
function requestPath(view, r) {
  const roleOrder = { prefill: 0, decode: 1, agg: 2 };
  const workers = [...r.workers].sort((a, b) => (roleOrder[a.split("-")[0]] ?? 9) - (roleOrder[b.split("-")[0]] ?? 9) || a.localeCompare(b));
  // A card with a usable report opens it at the shared range, keeping the
  // request, range and metrics.
  const card = (w, label) => {
    const usable = view.nsight && view.nsight.profileFor(w);
    return h("button", { type: "button", class: "path-node", disabled: !usable, title: usable ? `Inspect Nsight · ${w}` : "No Nsight report", dataset: { pathWorker: w }, onclick: usable ? () => view.api.inspectNsys({ worker: w }).catch(() => {}) : undefined }, label);
  };
  const nodes = [card("frontend", "Frontend + router")];
  for (const w of workers) {
    nodes.push(h("span", { class: "path-arrow" }, "→"));
    nodes.push(card(w, w));
  }
  const bindings = r.worker_bindings.map((b) => h("li", null, `${b.worker} on ${b.host} · process ${b.process ?? "unknown"} · ${b.basis}${b.ambiguous ? " · ambiguous" : ""}`));
  const engine = r.engine.map((e) => h("li", null, `${e.worker}: client id ${e.client_id}${e.disagg_id ? ` → disagg ${e.disagg_id}` : ""}`));
  return h(
    "div",
    { class: "request-path" },
    h("h4", null, "Recorded request path"),
    h("div", { class: "path" }, nodes),
    h("h4", null, "Identity bridge"),
    h("p", { class: "small" }, "Client ", h("code", null, r.id), " → Dynamo ", r.server_ids.map((id, k) => [k ? ", " : "", h("code", null, id)])),
    bindings.length ? h("ul", { class: "small" }, bindings) : null,
    engine.length ? h("ul", { class: "small" }, engine) : null,
  );
}

function apiTab(view) {
  const id = view.state.request;
  const lines = [
    "const x = window.traceExplorer;",
    `x.selectRange(${view.state.from.toFixed(3)}, ${view.state.to.toFixed(3)});`,
    'x.queryRequests({minTTFT: 1000, limit: 20});',
    id === null ? "" : `x.getRequest(${JSON.stringify(id)});`,
    "x.listSessions({limit: 10});",
    ...(view.nsight ? ["x.listProfiles();", `await x.inspectNsys({worker: ${JSON.stringify(view.nsight.current()?.worker ?? "frontend")}});`, "await x.queryNsys({name: \"\", limit: 20});", "await x.whenDetailsReady();"] : []),
    "x.describe().available;",
  ].filter(Boolean);
  return h(
    "div",
    { class: "api-tab" },
    h("p", null, "Drive this view from devtools or a script through ", h("code", null, "window.traceExplorer"), " (API ", h("code", null, "3.1"), "). The CLI answers the same questions: ", h("code", null, "dsight query REPORT requests --from 1 --to 5"), "."),
    h("pre", { class: "code" }, lines.join("\n")),
    h("div", { class: "actions" }, h("button", { type: "button", onclick: () => view.copyState() }, "Copy view state"), h("button", { type: "button", onclick: () => view.downloadExport() }, "Export evidence JSON")),
    h("p", { class: "muted small" }, `Range ${view.state.from.toFixed(3)}–${view.state.to.toFixed(3)} s · request ${id === null ? "none" : id}`),
  );
}

// nsightPhaseButton opens the selected phase's worker profile at the
// phase (selectSpan with nsys), when that worker has a usable report.
function nsightPhaseButton(view, span) {
  const worker = view.nsysWorker ? view.nsysWorker(span) : null;
  if (!worker || !view.nsight || !view.nsight.profileFor(worker)) return null;
  return h("button", { id: "inspectPhaseNsys", type: "button", onclick: () => view.state.span !== null && view.api.selectSpan(view.state.span, { nsys: true }) }, "Inspect phase in Nsight");
}
