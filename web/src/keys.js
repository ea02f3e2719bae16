// Keyboard and wheel navigation as in Perfetto: W/S zoom in/out around the
// middle of the view, A/D pan, Ctrl/⌘+wheel zooms at the cursor, a drag
// (Shift+drag too) over the lanes selects a range; `,` and `.` step to the
// previous/next request of the selected request's session; `?` shows the
// keys. Keys typed into a field, or with Ctrl/⌘/Alt held, are left alone.

import { h } from "./dom.js";
import { ask } from "./engine.js";

// ZOOM is the factor W divides and S multiplies the view's width by; PAN is
// the share of the width A and D move it by.
export const ZOOM = 2;
export const PAN = 0.25;
const WHEEL_ZOOM = 1.25;

export const KEYS = [
  ["W", "zoom in (half the width, same middle)"],
  ["S", "zoom out (double the width)"],
  ["A", "pan left by a quarter of the view"],
  ["D", "pan right by a quarter of the view"],
  ["Ctrl/⌘ + wheel", "zoom at the cursor"],
  ["drag, Shift+drag", "select a time range"],
  [",", "previous request in the selected session"],
  [".", "next request in the selected session"],
  ["?", "show or hide these keys"],
  ["Esc", "close this help, cancel a drag"],
];

// zoomAt narrows or widens [from, to] by factor around time t.
export function zoomAt(view, t, factor) {
  const { from, to } = view.state;
  const w = Math.min((to - from) * factor, view.duration);
  const k = (t - from) / (to - from);
  let a = Math.max(0, t - k * w);
  const b = Math.min(view.duration, a + w);
  a = Math.max(0, b - w);
  if (b > a) view.commitRange(a, b);
}

// panBy moves the view by share of its width, inside the run.
export function panBy(view, share) {
  const { from, to } = view.state;
  const w = to - from;
  const a = Math.min(Math.max(from + share * w, 0), view.duration - w);
  view.commitRange(a, a + w);
}

// stepRequest selects the previous (-1) or next (+1) request, in start
// order, of the selected request's session, panning it into view.
export function stepRequest(view, dir) {
  const cur = view.selected();
  if (!cur) return null;
  const items = [];
  for (let offset = 0; ; offset += 1000) {
    const page = ask("requests", { session: cur.session, offset, limit: 1000 });
    items.push(...page.items);
    if (items.length >= page.total || page.items.length === 0) break;
  }
  const k = items.findIndex((r) => r.id === cur.id) + dir;
  if (k < 0 || k >= items.length) return null;
  const next = items[k];
  view.selectRequest(next.id, { render: false });
  const { from, to } = view.state;
  if (next.start > to || next.end < from) {
    const w = to - from;
    const a = Math.min(Math.max(next.start - w / 4, 0), view.duration - w);
    view.commitRange(a, a + w);
  } else view.render();
  return next.id;
}

export function mountKeys(view, guard) {
  const help = h(
    "div",
    { id: "keysHelp", class: "keys-help", role: "dialog", "aria-label": "Keyboard shortcuts", hidden: true },
    h("h3", null, "Keys"),
    h("dl", null, KEYS.map(([k, v]) => [h("dt", null, h("kbd", null, k)), h("dd", null, v)])),
  );
  document.body.appendChild(help);
  const typing = (el) => el && (el.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName));
  window.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
    const act = {
      w: () => zoomAt(view, (view.state.from + view.state.to) / 2, 1 / ZOOM),
      s: () => zoomAt(view, (view.state.from + view.state.to) / 2, ZOOM),
      a: () => panBy(view, -PAN),
      d: () => panBy(view, PAN),
      ",": () => stepRequest(view, -1),
      ".": () => stepRequest(view, 1),
      "?": () => (help.hidden = !help.hidden),
      Escape: () => (help.hidden = true),
    }[ev.key.length === 1 ? ev.key.toLowerCase() : ev.key];
    if (!act) return;
    if (ev.key !== "Escape") ev.preventDefault();
    guard(act)();
  });
  // Ctrl/⌘ + wheel over the lanes zooms at the time under the cursor.
  for (const id of ["clientTracks", "slowRows", "axis"]) {
    const host = document.getElementById(id);
    if (!host) continue;
    host.addEventListener(
      "wheel",
      (ev) => {
        if (!(ev.ctrlKey || ev.metaKey) || ev.deltaY === 0) return;
        const lane = host.querySelector(".lane, .axis-lane");
        if (!lane) return;
        const r = lane.getBoundingClientRect();
        if (ev.clientX < r.left || ev.clientX > r.right) return;
        ev.preventDefault();
        const t = view.state.from + ((ev.clientX - r.left) / r.width) * (view.state.to - view.state.from);
        guard(() => zoomAt(view, t, ev.deltaY < 0 ? 1 / WHEEL_ZOOM : WHEEL_ZOOM))();
      },
      { passive: false },
    );
  }
}
