// The run overview: a histogram of request starts over the whole run with
// the selected range drawn on top. Dragging across it selects a range.

import { h, clear } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

function s(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

export function renderOverview(view, ov) {
  const host = clear(document.getElementById("overview"));
  const W = 1200;
  const H = 48;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", class: "overview-svg", role: "img", "aria-label": `Overview of ${ov.basis || "the run"}` });
  const n = ov.counts.length;
  const bw = W / n;
  for (let i = 0; i < n; i++) {
    if (!ov.counts[i]) continue;
    const bh = Math.max(1, (ov.counts[i] / ov.max) * (H - 4));
    svg.appendChild(s("rect", { x: i * bw, y: H - bh, width: Math.max(bw - 0.5, 0.5), height: bh, class: "ov-bar" }));
  }
  const sel = s("rect", { class: "ov-selection", y: 0, height: H, x: 0, width: W });
  svg.appendChild(sel);
  const brush = s("rect", { class: "ov-brush", y: 0, height: H, x: 0, width: 0, visibility: "hidden" });
  svg.appendChild(brush);
  host.appendChild(svg);
  host.appendChild(h("div", { class: "ov-caption muted" }, ov.basis ? `Overview: ${ov.basis} per ${ov.bin_seconds.toPrecision(3)} s` : "Overview"));

  // Written only when the window moved: an attribute written on the
  // selection restyles the whole histogram (~1 ms on 100,000 requests),
  // which a selection of a request in the same window should not pay.
  let drawnFor = "";
  const update = () => {
    const { from, to } = view.state;
    if (drawnFor === `${from} ${to}`) return;
    drawnFor = `${from} ${to}`;
    sel.setAttribute("x", (from / ov.duration) * W);
    sel.setAttribute("width", Math.max(((to - from) / ov.duration) * W, 1));
  };
  update();

  const timeAt = (ev) => {
    const r = svg.getBoundingClientRect();
    return Math.min(Math.max((ev.clientX - r.left) / r.width, 0), 1) * ov.duration;
  };
  let start = null;
  svg.addEventListener("pointerdown", (ev) => {
    start = timeAt(ev);
    svg.setPointerCapture(ev.pointerId);
  });
  svg.addEventListener("pointermove", (ev) => {
    if (start === null) return;
    const t = timeAt(ev);
    brush.setAttribute("visibility", "visible");
    brush.setAttribute("x", (Math.min(start, t) / ov.duration) * W);
    brush.setAttribute("width", (Math.abs(t - start) / ov.duration) * W);
  });
  const finish = (ev, commit) => {
    if (start === null) return;
    const t = timeAt(ev);
    const [a, b] = [Math.min(start, t), Math.max(start, t)];
    start = null;
    brush.setAttribute("visibility", "hidden");
    if (commit && b - a > ov.duration / 1200) view.commitRange(a, b);
  };
  svg.addEventListener("pointerup", (ev) => finish(ev, true));
  svg.addEventListener("pointercancel", (ev) => finish(ev, false));
  return update;
}
