// The one time axis every track is drawn on: the overview, the client
// lanes, the lifecycle rows, the percentile rows, the server-activity
// lanes, the Nsight tracks and the metric charts, all in one column beside
// the inspector. A lane starts gutter() px after the left edge of the
// tracks panel's content box and ends rightMargin() px before its right
// edge (the overview row and the metric charts keep to the same box), and time t sits at the same fraction of
// that lane everywhere, so a vertical line at t crosses every track at t.
// The widths live here alone: CSS reads them as --label-w and --lane-right.

// Gutter and right margin at ordinary widths, and below NARROW px.
const WIDE = { gutter: 240, right: 44 };
const SLIM = { gutter: 120, right: 12 };
const NARROW = 560;

const widths = () => (typeof window !== "undefined" && window.innerWidth <= NARROW ? SLIM : WIDE);

// gutter is the width of the label column left of every lane, in CSS px.
export const gutter = () => widths().gutter;

// rightMargin is the space right of every lane, in CSS px.
export const rightMargin = () => widths().right;

// laneX places time t on a lane as a fraction of its width (not clamped).
export const laneX = (state, t) => (t - state.from) / (state.to - state.from);

// lanePct is t's position in percent of a lane's width, clamped to it.
export const lanePct = (state, t) => Math.min(Math.max(laneX(state, t), 0), 1) * 100;

// laneWidthPct is the clamped width in percent of [a, b] on a lane.
export const laneWidthPct = (state, a, b) => Math.max(lanePct(state, b) - lanePct(state, a), 0);

// timeAtFrac is the time at fraction f of a lane.
export const timeAtFrac = (state, f) => state.from + f * (state.to - state.from);

// column is the panel whose content box the lanes are laid out in.
const column = () => document.getElementById("tracks");

// laneBox is where the lanes are on the page now, in client px, or null
// before the column is laid out.
export function laneBox() {
  const col = column();
  if (!col) return null;
  const r = col.getBoundingClientRect();
  if (!r.width) return null;
  const left = r.left + col.clientLeft + gutter();
  const right = r.left + col.clientLeft + col.clientWidth - rightMargin();
  return { left, right, width: Math.max(right - left, 1) };
}

// insets are how far a chart drawn into box must keep its plot from box's
// left and right edges so the plot covers exactly the lanes.
export function insets(box) {
  const lanes = laneBox();
  const r = box.getBoundingClientRect();
  if (!lanes || !r.width) return { left: 56, right: 8 };
  return { left: Math.max(Math.round(lanes.left - r.left), 0), right: Math.max(Math.round(r.right - lanes.right), 0) };
}

// installAxis publishes the widths to CSS and keeps them current.
export function installAxis() {
  const apply = () => {
    const root = document.documentElement.style;
    root.setProperty("--label-w", `${gutter()}px`);
    root.setProperty("--lane-right", `${rightMargin()}px`);
  };
  apply();
  window.addEventListener("resize", apply);
}
