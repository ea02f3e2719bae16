// Stacked bands: the series of a family the catalog marks stackable
// (listMetricFamilies' stack_by, and stack_within when a key stacks only
// within the values of another label, as workers do within their role)
// are drawn as bands, each filled in its colour from the sum of the bands
// below it to that sum plus its own held value, the family's total line on
// top. A band top is a sum of the engine's values, never anything else:
// from exact step values (every change in the window), or, where the
// window holds too many changes to ask for, from each pixel's recorded
// maximum, which the chart then labels an upper bound.

import { h, clear, setText } from "./dom.js";
import { plotSeries } from "./metricdata.js";
import { pointAt } from "./metricdraw.js";

// EXACT_ROWS is how many changes a band's series may hold in the window
// for its exact step values to be asked for (the plot's widest answer).
// A page opened with ?stack-exact-rows=N asks only up to N (0: never).
export const EXACT_ROWS = 8192;

export function exactRowsLimit() {
  const knob = new URLSearchParams(location.search).get("stack-exact-rows");
  const n = knob === null ? NaN : Number(knob);
  return Number.isInteger(n) && n >= 0 ? Math.min(n, EXACT_ROWS) : EXACT_ROWS;
}

const labelsOf = (s) => new Map((s.labels || []).map((l) => [l.key, l.value]));
const natural = new Intl.Collator("en-US", { numeric: true });

// stackGroups lists the stacks of a family's series: per stack key (in
// stack_by order) one stack, or one per value of its stack_within label,
// each with its members in label-value order. A series without the label
// that splits its key stacks nowhere.
export function stackGroups(items, by = [], within = {}) {
  const groups = [];
  for (const key of by || []) {
    const split = within?.[key] ?? null;
    const byValue = new Map();
    for (const s of items) {
      const l = labelsOf(s);
      if (!l.has(key)) continue;
      const g = split ? l.get(split) : "";
      if (g === undefined) continue;
      if (!byValue.has(g)) byValue.set(g, []);
      byValue.get(g).push({ item: s, value: l.get(key) });
    }
    for (const g of [...byValue.keys()].sort(natural.compare)) {
      const members = byValue.get(g).sort((a, b) => natural.compare(a.value, b.value));
      if (members.length < 2) continue;
      groups.push({ id: split ? `${key} ${split}=${g}` : key, key, split, value: g, caption: split ? `${key} within ${split} ${g}` : key, members: members.map((m) => m.item) });
    }
  }
  return groups;
}

// heldAt is the value s holds at t: its last point at or before t, or
// the setting carried into the window; NaN when unknown.
function heldAt(s, t, k) {
  if (k >= 0) return s.values[k];
  return s.carried_setting && s.carried_setting[1] !== null ? s.carried_setting[1] : NaN;
}

// exactBands: at every change time in [from, to] (and at from), each
// band's held value and the cumulative tops, in band order. A band whose
// value is unknown has no top, nor has any band above it.
function exactBands(cols, from, to) {
  const all = [];
  for (const s of cols) for (const t of s.times) if (t > from && t <= to) all.push(t);
  all.push(from);
  all.sort((a, b) => a - b);
  const times = all.filter((t, i) => i === 0 || t !== all[i - 1]);
  const n = times.length;
  const own = cols.map(() => new Float64Array(n));
  const tops = cols.map(() => new Float64Array(n));
  const at = cols.map(() => -1);
  for (let i = 0; i < n; i++) {
    const t = times[i];
    let sum = 0;
    cols.forEach((s, b) => {
      while (at[b] + 1 < s.times.length && s.times[at[b] + 1] <= t) at[b]++;
      const v = heldAt(s, t, at[b]);
      own[b][i] = v;
      sum += v; // NaN stays NaN for every band above
      tops[b][i] = sum;
    });
  }
  return { exact: true, times: Float64Array.from(times), own, tops };
}

// maxBands: per pixel of [from, to], each band's largest value in it (the
// value held into the pixel and every point inside), stacked: an upper
// bound of every stacked sum in that pixel, as min/max buckets cannot be
// added exactly.
function maxBands(cols, from, to, pixels) {
  const n = Math.max(1, Math.floor(pixels));
  const w = (to - from) / n;
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) times[i] = from + i * w;
  const own = cols.map((s) => {
    const out = new Float64Array(n).fill(NaN);
    let k = -1;
    for (let i = 0; i < n; i++) {
      const a = times[i];
      const b = i + 1 < n ? times[i + 1] : to;
      while (k + 1 < s.times.length && s.times[k + 1] <= a) k++;
      let m = heldAt(s, a, k);
      while (k + 1 < s.times.length && s.times[k + 1] < b) {
        k++;
        const v = s.values[k];
        if (v === v && !(v <= m)) m = v;
      }
      out[i] = m;
    }
    return out;
  });
  const tops = own.map(() => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    let sum = 0;
    own.forEach((o, b) => {
      sum += o[i];
      tops[b][i] = sum;
    });
  }
  return { exact: false, times, own, tops };
}

// bands computes a stack's bands over [from, to] from its members'
// columns (exact columns preferred): exact step sums when every member is
// exact, else per-pixel maxima.
export function bands(cols, from, to, pixels) {
  if (!cols.length) return null;
  return cols.every((s) => s.exact) ? exactBands(cols, from, to) : maxBands(cols, from, to, pixels);
}

// indexAt is the band row holding time t, or -1 before the first.
export function indexAt(b, t) {
  let lo = 0;
  let hi = b.times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (b.times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

// stepPaths are band k's filled area (from the top below to its own) and
// its top outline, held as steps to the window's right edge.
export function stepPaths(u, b, k, to) {
  const { left, top, width, height } = u.bbox;
  const x0 = u.scales.x.min;
  const y1 = u.scales.y.max;
  const kx = width / (u.scales.x.max - x0 || 1);
  const ky = height / (y1 - u.scales.y.min || 1);
  const X = (t) => left + (t - x0) * kx;
  const Y = (v) => top + (y1 - v) * ky;
  const fill = new Path2D();
  const stroke = new Path2D();
  const hi = b.tops[k];
  const lo = k > 0 ? b.tops[k - 1] : null;
  const n = b.times.length;
  for (let i = 0; i < n; i++) {
    const a = X(b.times[i]);
    const e = X(i + 1 < n ? b.times[i + 1] : to);
    const v = hi[i];
    if (v !== v) continue;
    const base = lo ? lo[i] : 0;
    fill.rect(a, Y(v), e - a, Y(base) - Y(v));
    stroke.moveTo(a, Y(v));
    stroke.lineTo(e, Y(v));
    const next = i + 1 < n ? hi[i + 1] : NaN;
    if (next === next) stroke.lineTo(e, Y(next));
  }
  return { fill, stroke };
}

// exactColumns asks the engine, for the shown members of every stack of
// family f whose plot is not exact, for their exact step values in [from,
// to] when each holds at most exactRowsLimit() changes there: a Map id →
// exact plot series (only those that came back exact), or null.
export async function exactColumns({ f, items, hidden, answer, from, to, stale }) {
  if (!f?.stack_by?.length || !answer) return null;
  const limit = exactRowsLimit();
  const ids = [];
  const total = items.find((s) => !(s.labels || []).length);
  const tp = total && answer.series.get(total.id);
  if (tp && !tp.exact && tp.points_total <= limit) ids.push(total.id);
  for (const g of stackGroups(items, f.stack_by, f.stack_within)) {
    for (const s of g.members) {
      const p = answer.series.get(s.id);
      if (!hidden.has(String(s.id)) && p && !p.exact && p.points_total <= limit) ids.push(s.id);
    }
  }
  if (!ids.length) return null;
  const r = await plotSeries({ from, to, pixels: EXACT_ROWS, ids, family: f.name, stale });
  if (!r) return null;
  const out = new Map();
  for (const [id, s] of r.series) if (s.exact) out.set(id, s);
  return out;
}

// createStack is a chart's stack state: the stacks of its items, the one
// drawn (buttons to choose another), its bands for the current window, and
// the legend line naming each band's value at the hover time and their
// total. redraw is called when another stack is chosen.
export function createStack({ items, by, within, caps, color, fmt, redraw }) {
  const groups = stackGroups(items, by, within);
  if (!groups.length) return null;
  let active = groups[0];
  let cur = null; // {bands, members, total}
  const box = h("div", { class: "ds-stack" });
  const choose = h("div", { class: "ds-stack-groups" });
  const legend = h("div", { class: "ds-stack-legend", "aria-live": "off" });
  const buttons = groups.map((g) => {
    const b = h("button", { type: "button", class: "ds-stack-group", "aria-pressed": String(g === active), "data-stack": g.id }, g.split ? `${g.split} ${g.value}` : g.key);
    b.addEventListener("click", () => {
      active = g;
      buttons.forEach((x, i) => x.setAttribute("aria-pressed", String(groups[i] === g)));
      redraw();
    });
    return b;
  });
  const how = h("span", { class: "ds-stack-how muted" });
  choose.append(h("span", { class: "muted" }, "Stacked: "), ...(groups.length > 1 ? buttons : []), how);
  box.append(choose, legend);
  setText(legend, "\u00a0");
  const stacked = new Set(groups.flatMap((g) => g.members));
  const indexOf = new Map(items.map((s, k) => [s.id, k]));
  const totalItem = items.find((s) => !(s.labels || []).length) || null;

  const stack = {
    box,
    get active() {
      return active;
    },
    // update recomputes the bands from the chart's current columns.
    update({ from, to, plot, hidden }, exact, pixels) {
      const members = active.members.filter((s) => !hidden.has(String(s.id)) && (exact?.get(s.id) || plot.get(s.id)));
      const cols = members.map((s) => exact?.get(s.id) || plot.get(s.id));
      cur = { members, bands: bands(cols, from, to, pixels), from, to, total: totalItem ? exact?.get(totalItem.id) || plot.get(totalItem.id) : null };
      box.dataset.stacked = active.id;
      box.dataset.exact = String(!!cur.bands?.exact);
      const n = cur.bands ? cur.bands.times.length : 0;
      setText(how, !cur.bands ? " no band drawn" : cur.bands.exact ? ` ${active.caption}: each band's held value at every change (${n.toLocaleString("en-US")} in the window), summed in this order; the other stacks' series are not drawn meanwhile.` : ` ${active.caption}: each pixel's maximum per band (an upper bound of the sums); the other stacks' series are not drawn meanwhile.`);
    },
    draws: (s) => !!cur?.bands && cur.members.includes(s),
    // hides: a series of another stack than the one drawn.
    hides: (s) => stacked.has(s) && !active.members.includes(s),
    totalId: totalItem ? totalItem.id : null,
    paths(u, s) {
      const k = cur.members.indexOf(s);
      return stepPaths(u, cur.bands, k, cur.to);
    },
    // extent is the highest band top, for the y range.
    extent() {
      if (!cur?.bands) return null;
      const tops = cur.bands.tops[cur.bands.tops.length - 1];
      let hi = 0;
      for (const v of tops) if (v > hi) hi = v;
      return { min: 0, max: hi };
    },
    note() {
      if (!cur?.bands || cur.bands.exact) return null;
      return `Stacked bands (${active.caption}) are drawn at each pixel's recorded maximum of every band, an upper bound of the sums: this window holds more changes than are asked for exactly; zoom in for exact bands.`;
    },
    // hover writes each band's own value at time t (null: clear), with
    // the stack's total and the family's total line, and keeps the tops
    // in data-bands for scripts.
    hover(t, unit) {
      if (t === null || !cur?.bands) {
        setText(legend, "\u00a0");
        delete legend.dataset.bands;
        return;
      }
      const b = cur.bands;
      const i = indexAt(b, t);
      const bound = b.exact ? "" : "≤ ";
      const parts = [`${active.caption} @ ${t.toFixed(3)} s${b.exact ? "" : " (per-pixel maxima, upper bound)"}:`];
      const rows = cur.members.map((s, k) => {
        const own = i >= 0 && b.own[k][i] === b.own[k][i] ? b.own[k][i] : null;
        const top = i >= 0 && b.tops[k][i] === b.tops[k][i] ? b.tops[k][i] : null;
        parts.push(`${caps[indexOf.get(s.id)]} ${own === null ? "unknown" : bound + fmt(own, unit)}`);
        return { id: s.id, caption: caps[indexOf.get(s.id)], value: own, top };
      });
      const sum = rows.length ? rows[rows.length - 1].top : null;
      parts.push(`stack total ${sum === null ? "unknown" : bound + fmt(sum, unit)}`);
      // The family's total line (every request, labelled or not), as held.
      const tk = cur.total ? pointAt(cur.total, t, true) : -1;
      const all = tk >= 0 && cur.total.exact ? cur.total.values[tk] : null;
      if (totalItem && cur.total) parts.push(`${caps[indexOf.get(totalItem.id)]} ${all === null ? "drawn from bucket extremes" : fmt(all, unit)}`);
      clear(legend);
      legend.append(`${parts[0]} ${parts.slice(1).join(" · ")}`);
      legend.dataset.bands = JSON.stringify({ t, exact: b.exact, time: i >= 0 ? b.times[i] : null, bands: rows, total: sum, all });
    },
    color: (s) => color(indexOf.get(s.id)),
  };
  return stack;
}
