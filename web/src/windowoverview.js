// The overview of the window: the whole-run overview (#overview) stays the
// brush over the run, with the selected window marked on it; below it,
// connector lines lead from the window's edges on the run overview to the
// edges of the shared time axis, and a track at the top of the timeline
// draws the same histogram (the engine's window_overview: request starts,
// else server span starts) for the window alone, on the one time axis every
// track uses (timeaxis.js), so a vertical line at t crosses it at t too.

import { $, h, clear, setText } from "./dom.js";
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
  const per = ov.bin_seconds >= 1 ? `${ov.bin_seconds.toPrecision(3)} s` : `${(ov.bin_seconds * 1000).toPrecision(3)} ms`;
  // A new window (a fit, a zoom) keeps the row, its label and its path and
  // sets their numbers: an element built again costs its creation, style
  // and layout.
  if (!row) {
    row = h("div", { id: "windowOverview", class: "row window-overview-row", "aria-label": "Overview of the selected window" });
    $("axis").after(row);
  }
  let svg = row.querySelector("svg.window-overview-svg");
  if (!svg) {
    clear(row);
    svg = s("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "window-overview-svg", role: "img" });
    svg.appendChild(s("path", { class: "ov-bar" }));
    row.append(
      h("div", { class: "row-label" }, h("span", { class: "name" }, "Window overview"), h("span", { class: "muted small" })),
      h("div", { class: "lane window-overview-lane" }, svg),
    );
  }
  svg.setAttribute("aria-label", `${ov.basis} in the selected window`);
  const [name, unit] = row.firstChild.children;
  name.title = `Overview of the window: ${ov.basis} per ${per}`;
  setText(unit, `${ov.basis} / ${per}`);
  Object.assign(row.lastChild.dataset, { from: String(ov.from), to: String(ov.to), binSeconds: String(ov.bin_seconds) });
  // The bars are one path, its d set once: a bar per non-empty bin as
  // its own rect took ~1.4 ms of every fit and zoom at 200 bins, most of
  // it writing heights and counts one attribute at a time
  // (docs/measurements.md, issue 17). Each bin's count is in the svg's
  // data-counts, in bin order.
  const bw = W / ov.counts.length;
  const w = +Math.max(bw - 0.5, 0.5).toFixed(3);
  let d = "";
  ov.counts.forEach((c, i) => {
    if (!c) return;
    const bh = +Math.max(1, (c / ov.max) * (H - 2)).toFixed(2);
    d += `M${+(i * bw).toFixed(3)} ${+(H - bh).toFixed(2)}h${w}v${bh}h${-w}z`;
  });
  svg.firstChild.setAttribute("d", d);
  svg.dataset.counts = ov.counts.join(",");
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
  // The two lines are kept and moved.
  const CH = 14;
  const a = (view.state.from / dur) * W;
  const b = (view.state.to / dur) * W;
  let lines = box.querySelectorAll("line.ov-connector");
  if (lines.length !== 2) {
    clear(box);
    const svg = s("svg", { viewBox: `0 0 ${W} ${CH}`, preserveAspectRatio: "none", class: "overview-connector-svg" });
    svg.appendChild(s("line", { x1: 0, y1: 0, x2: 0, y2: CH, class: "ov-connector", "data-edge": "from" }));
    svg.appendChild(s("line", { x1: 0, y1: 0, x2: W, y2: CH, class: "ov-connector", "data-edge": "to" }));
    box.appendChild(svg);
    lines = box.querySelectorAll("line.ov-connector");
  }
  lines[0].setAttribute("x1", String(a));
  lines[1].setAttribute("x1", String(b));
}
