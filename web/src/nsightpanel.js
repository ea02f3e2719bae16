// The inspector's Nsight tab: report selector, Show/Hide tracks, compare
// mode, the chosen report's facts, its CPU sample hotspots and the ranges
// in the selected window. It draws from what the Nsight tracks last
// loaded (nsightview.js); the tracks redraw the inspector when they land.

import { h, fmtDuration } from "./dom.js";
import { nameColor } from "./nsightview.js";

const HOTSPOT_ROWS = 12;
const SYMBOL_CHARS = 130;

export function nsightTab(view) {
  const ns = view.nsight;
  const s = view.state;
  const p = ns.current();
  if (!p) return h("p", { class: "muted" }, "No Nsight report is in this run.");
  const select = h(
    "select",
    { id: "nsightProfile", "aria-label": "Nsight report", onchange: (ev) => view.showNsight(true, { profile: Number(ev.target.value) }) },
    ns.profiles.map((q) => h("option", { value: String(q.id), selected: q.id === p.id }, profileLabel(q))),
  );
  const header = ns.views.get(p.id)?.header;
  const inWindow = !s.nsys ? "shown with the tracks" : !header ? "loading…" : header.mode === "exact" ? `${header.total.toLocaleString("en-US")} exact` : `≤ ${header.estimate.toLocaleString("en-US")} (density shown; zoom in below ${header.threshold.toLocaleString("en-US")})`;
  const c = p.counts;
  const facts = [
    ["Coverage", `capture ${p.capture[0].toFixed(3)}–${p.capture[1].toFixed(3)} s${p.imported_range ? ` · imported ranges ${p.imported_range[0].toFixed(3)}–${p.imported_range[1].toFixed(3)} s` : " · no ranges imported"}`],
    p.truncated ? ["Partial import", `kept ${p.event_count.toLocaleString("en-US")} of ${p.selected_event_count.toLocaleString("en-US")} selected ranges (limit ${p.limit.toLocaleString("en-US")}); nothing after ${p.imported_range ? p.imported_range[1].toFixed(3) : "?"} s`] : null,
    ["Ranges in window", inWindow],
    ["Ranges imported", `${p.event_count.toLocaleString("en-US")} of ${c.rows.toLocaleString("en-US")} rows · ${p.names} names`],
    ["Host", `${p.host ?? "unknown"} (${p.host_source})`],
    ["CUDA", p.cuda ? "kernel table present in the export; kernels are not imported" : "no CUDA kernel table in the export"],
    ["Excluded ranges", `${c.invalid_or_boundary.toLocaleString("en-US")} inverted or outside capture · ${c.unselected.toLocaleString("en-US")} outside the NVTX categories · ${c.null_names.toLocaleString("en-US")} unnamed`],
    ["Identity", [p.rank !== null ? `rank ${p.rank}` : "rank not recorded", p.gpus !== null ? `GPUs ${p.gpus}` : null, p.engine !== null ? `engine ${p.engine}` : null].filter(Boolean).join(" · ")],
  ].filter(Boolean);
  const box = h(
    "div",
    { class: "nsight-tab" },
    h("label", { class: "nsight-select" }, "Report ", select),
    h(
      "div",
      { class: "actions" },
      h("button", { id: "nsightToggle", type: "button", onclick: () => view.showNsight(!s.nsys) }, s.nsys ? "Hide Nsight tracks" : "Show Nsight tracks"),
      h("button", { id: "nsightCompare", type: "button", disabled: s.request === null, "aria-pressed": s.compareNsys ? "true" : "false", title: s.request === null ? "Select a request to compare its workers" : "", onclick: () => view.showNsight(true, { compare: !s.compareNsys }) }, s.compareNsys ? "Show one report" : "Compare frontend + request workers"),
    ),
    h("dl", { class: "stats" }, facts.map(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
    p.cpu_samples > 0 ? hotspots(view, p) : null,
    rangesTable(header),
    h("p", { class: "evidence" }, "Evidence: ", h("code", { title: `source ${p.evidence_source}` }, p.file), " · ", p.clock),
    p.diagnostics.length ? [h("h4", null, "Collection notes"), h("ul", { class: "small" }, p.diagnostics.map((d) => h("li", null, d)))] : null,
    p.schema.missing.length ? h("p", { class: "muted small" }, `Not in this export's schema: ${p.schema.missing.join(", ")}`) : null,
  );
  return box;
}

export function profileLabel(p) {
  const id = [p.worker, p.rank !== null ? `rank ${p.rank}` : null, p.gpus !== null ? `gpu ${p.gpus}` : null, p.engine !== null ? `engine ${p.engine}` : null].filter(Boolean).join(" / ");
  return `${id} · ${p.host ?? "unknown host"} · ${p.event_count.toLocaleString("en-US")} ranges`;
}

function hotspots(view, p) {
  const got = view.nsight.cpu;
  const s = view.state;
  const head = h("h4", null, "Frontend CPU sample hotspots");
  const fresh = got && got.profile === p.id && got.range[0] === s.from && got.range[1] === s.to;
  if (!s.nsys || !fresh) return [head, h("p", { class: "muted small" }, s.nsys ? "Loading CPU samples for this window…" : "Show the Nsight tracks to load CPU samples for this window.")];
  const a = got.answer;
  if (a.total_samples === 0) return [head, h("p", { class: "muted small" }, "No CPU sample of this process falls in the selected window.")];
  const rows = a.hotspots.slice(0, HOTSPOT_ROWS).map((r) =>
    h("tr", null, h("td", { class: "symbol", title: r.symbol }, r.symbol.length > SYMBOL_CHARS ? `${r.symbol.slice(0, SYMBOL_CHARS)}…` : r.symbol), h("td", { class: "num" }, r.samples.toLocaleString("en-US")), h("td", { class: "num" }, `${(r.fraction * 100).toFixed(1)}%`)),
  );
  return [
    head,
    h("p", { class: "muted small" }, `${a.total_samples.toLocaleString("en-US")} samples of pid ${a.pid} · inclusive: a symbol counts once per sample whose call chain holds it, so percentages add to more than 100%.`),
    h("table", { class: "hotspots small" }, h("thead", null, h("tr", null, h("th", null, "Symbol"), h("th", null, "Samples"), h("th", null, "Share"))), h("tbody", null, rows)),
  ];
}

function rangesTable(header) {
  const head = h("h4", null, "Ranges in selected window");
  if (!header) return [head, h("p", { class: "muted small" }, "Show the Nsight tracks to list the ranges of this window.")];
  if (header.mode !== "exact") return [head, h("p", { class: "muted small" }, `Zoom in until the window's shards hold at most ${header.threshold.toLocaleString("en-US")} ranges to list them; queryNsys() pages exact ranges at any range.`)];
  if (!header.top_names.length) return [head, h("p", { class: "muted small" }, "No selected NVTX ranges overlap this window")];
  return [
    head,
    h(
      "table",
      { class: "top-names small" },
      h("thead", null, h("tr", null, h("th", null, "Name"), h("th", null, "Count"), h("th", null, "Elapsed in window"))),
      h("tbody", null, header.top_names.map((t) => h("tr", null, h("td", { class: "symbol", title: t.name }, swatch(t.name), t.name), h("td", { class: "num" }, t.count.toLocaleString("en-US")), h("td", { class: "num" }, fmtDuration(t.seconds))))),
    ),
  ];
}

// swatch is a name's colour in the tracks.
function swatch(name) {
  return h("i", { class: "swatch", style: { background: nameColor(name) } });
}
