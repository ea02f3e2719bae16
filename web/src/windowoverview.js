// The overview of the window: the whole-run overview (#overview) stays the
// brush over the run, with the selected window marked on it; below it,
// connector lines lead from the window's edges on the run overview to the
// edges of the shared time axis, and a track at the top of the timeline
// draws the same histogram (the engine's window_overview: request starts,
// else server span starts) for the window alone, on the one time axis every
// track uses (timeaxis.js), so a vertical line at t crosses it at t too.

import { $, h, clear } from "./dom.js";
import { ask } from "./engine.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 1200;
const H = 32;
const BINS = 200;

function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

// renderWindowOverview draws (or removes, when the run has nothing the
// overview counts) the window's track and the connectors.
export function renderWindowOverview(view) {
  const caps = view.summary.capabilities;
  let row = document.getElementById("windowOverview");
  if (!caps.requests && !caps.server_activity) {
    row?.remove();
    document.getElementById("overviewConnector")?.remove();
    return;
  }
  const { from, to } = view.state;
  // The track and connectors depend on the window alone: a render that
  // keeps it (a request or span selected, a row expanded) keeps them,
  // without asking the engine or building the histogram's bars again.
  if (row && row.dataset.drawnFor === `${from} ${to}`) return;
  const ov = ask("window_overview", { from, to, bins: BINS });
  if (!row) {
    row = h("div", { id: "windowOverview", class: "row window-overview-row", "aria-label": "Overview of the selected window" });
    $("axis").after(row);
  }
  clear(row);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "window-overview-svg", role: "img", "aria-label": `${ov.basis} in the selected window` });
  const bw = W / ov.counts.length;
  ov.counts.forEach((c, i) => {
    if (!c) return;
    const bh = Math.max(1, (c / ov.max) * (H - 2));
    const r = s("rect", { x: i * bw, y: H - bh, width: Math.max(bw - 0.5, 0.5), height: bh, class: "ov-bar" });
    r.dataset.bin = String(i);
    r.dataset.count = String(c);
    svg.appendChild(r);
  });
  const per = ov.bin_seconds >= 1 ? `${ov.bin_seconds.toPrecision(3)} s` : `${(ov.bin_seconds * 1000).toPrecision(3)} ms`;
  row.append(
    h("div", { class: "row-label" }, h("span", { class: "name", title: `Overview of the window: ${ov.basis} per ${per}` }, "Window overview"), h("span", { class: "muted small" }, `${ov.basis} / ${per}`)),
    h("div", { class: "lane window-overview-lane", dataset: { from: String(ov.from), to: String(ov.to), binSeconds: String(ov.bin_seconds) } }, svg),
  );
  connectors(view);
  row.dataset.drawnFor = `${from} ${to}`;
}

// connectors draws, under #overview, a line from each edge of the window
// marked on the run overview to the same edge of the lanes below.
function connectors(view) {
  const ovRow = document.querySelector(".overview-row");
  const dur = view.duration;
  if (!ovRow || !(dur > 0)) return;
  let box = document.getElementById("overviewConnector");
  if (!box) {
    box = h("div", { id: "overviewConnector", class: "overview-connector", "aria-hidden": "true" });
    ovRow.appendChild(box);
  }
  clear(box);
  const CH = 14;
  const svg = s("svg", { viewBox: `0 0 ${W} ${CH}`, preserveAspectRatio: "none", class: "overview-connector-svg" });
  const a = (view.state.from / dur) * W;
  const b = (view.state.to / dur) * W;
  svg.appendChild(s("line", { x1: a, y1: 0, x2: 0, y2: CH, class: "ov-connector", "data-edge": "from" }));
  svg.appendChild(s("line", { x1: b, y1: 0, x2: W, y2: CH, class: "ov-connector", "data-edge": "to" }));
  box.appendChild(svg);
}
