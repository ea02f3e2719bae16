// Drawing a metric series straight from its plot columns: uPlot keeps the
// axes, cursor, selection and canvas, and each series supplies its own path
// built from Float64Arrays (times, values with NaN gaps), so no aligned
// table of every series' timestamps is ever made. Every vertex is a point
// the engine returned: a recorded row, a bucket's recorded min or max, or
// (events) the labelled median of events sharing a timestamp.

// transform maps (seconds, value) to canvas pixels for u's current scales.
function transform(u) {
  const { left, top, width, height } = u.bbox;
  const sx = u.scales.x;
  const sy = u.scales.y;
  const kx = width / (sx.max - sx.min || 1);
  const ky = height / (sy.max - sy.min || 1);
  return { x: (t) => left + (t - sx.min) * kx, y: (v) => top + (sy.max - v) * ky, left, right: left + width };
}

// linePath joins the points, breaking at gaps; a setting is a step held
// until its next point and, as display only, from the setting carried into
// the view (at the left edge) to the right edge. markers adds a small box
// per point (sparse sample series), as uPlot's point markers would. A run
// of points at one height is drawn as one segment through its last point:
// the same line, and far fewer path commands for the idle (0) or saturated
// series a GPU family is full of.
export function linePath(u, s, { from, to, stepped = false, markers = false }) {
  const p = new Path2D();
  // The transform is written out, and the loop keeps its state in plain
  // locals: state held in closures is boxed, one allocation per point,
  // which made this the page's largest allocation (~230 KB a zoom).
  const { left, top, width, height } = u.bbox;
  const x0 = u.scales.x.min;
  const y1 = u.scales.y.max;
  const kx = width / (u.scales.x.max - x0 || 1);
  const ky = height / (y1 - u.scales.y.min || 1);
  const ts = s.times;
  const vs = s.values;
  let pen = false;
  let py = 0;
  let holding = false; // a level run's last point is not drawn yet
  let heldX = 0;
  const carried = s.carried_setting;
  // Conflicting settings recorded at the carried time: each value is held
  // (none wins), drawn from the left edge to the first point in view.
  if (stepped && s.carried_values && (!ts.length || ts[0] > from)) {
    const end = left + ((ts.length ? Math.min(ts[0], to) : to) - x0) * kx;
    for (const v of s.carried_values) {
      if (v === null) continue;
      const y = top + (y1 - v) * ky;
      p.moveTo(left + (from - x0) * kx, y);
      p.lineTo(end, y);
    }
  }
  if (stepped && carried && carried[1] !== null && (!ts.length || ts[0] > from)) {
    py = top + (y1 - carried[1]) * ky;
    p.moveTo(left + (from - x0) * kx, py);
    pen = true;
  }
  for (let k = 0; k < ts.length; k++) {
    const v = vs[k];
    if (v !== v) {
      // A gap: for a setting, a cleared value ends the held line here.
      if (stepped && pen) p.lineTo(left + (ts[k] - x0) * kx, py);
      else if (holding) p.lineTo(heldX, py);
      holding = false;
      pen = false;
      continue;
    }
    const px = left + (ts[k] - x0) * kx;
    const ny = top + (y1 - v) * ky;
    if (!pen) p.moveTo(px, ny);
    else if (ny === py) {
      holding = true;
      heldX = px;
    } else if (stepped) {
      holding = false;
      p.lineTo(px, py);
      p.lineTo(px, ny);
    } else {
      if (holding) p.lineTo(heldX, py);
      holding = false;
      p.lineTo(px, ny);
    }
    pen = true;
    py = ny;
  }
  if (stepped && pen && (!ts.length || ts[ts.length - 1] < to)) {
    holding = false;
    p.lineTo(left + (to - x0) * kx, py);
  }
  if (holding) p.lineTo(heldX, py);
  // The recorded samples just outside the window (the engine adds them
  // so a window shorter than the sampling interval is not blank) are
  // ringed: the line to them is recorded, the point is not in the window.
  if (!stepped) {
    for (const k of [0, ts.length - 1]) {
      if (k < 0 || vs[k] !== vs[k] || (ts[k] >= from && ts[k] <= to)) continue;
      const px = left + (ts[k] - x0) * kx;
      const ny = top + (y1 - vs[k]) * ky;
      p.moveTo(px + 3.5, ny);
      p.arc(px, ny, 3.5, 0, 2 * Math.PI);
    }
  }
  if (markers) {
    for (let k = 0; k < ts.length; k++) {
      const v = vs[k];
      if (v !== v) continue;
      const px = left + (ts[k] - x0) * kx;
      const ny = top + (y1 - v) * ky;
      p.moveTo(px - 1.5, ny - 1.5);
      p.rect(px - 1.5, ny - 1.5, 3, 3);
    }
  }
  return p;
}

// countLabels writes "×N" over each event median standing for several
// events, when few enough to read.
export function countLabels(u, s, color, max = 60) {
  if (!s.counts) return;
  const idx = [];
  for (let k = 0; k < s.counts.length && idx.length <= max; k++) if (s.counts[k] > 1) idx.push(k);
  if (!idx.length || idx.length > max) return;
  const { x, y } = transform(u);
  const ctx = u.ctx;
  ctx.save();
  ctx.fillStyle = color;
  ctx.font = `${Math.round(10 * devicePixelRatio)}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  for (const k of idx) ctx.fillText(`×${s.counts[k]}`, x(s.times[k]), y(s.values[k]) - 5 * devicePixelRatio);
  ctx.restore();
}

// yRange spans the in-range extremes of the shown series (the engine's
// exact min and max, which are among the drawn points) and the settings
// carried into the view; capacity charts start at zero and leave room
// above the limit.
export function yRange(shown, capacity) {
  let lo = Infinity;
  let hi = -Infinity;
  const add = (v) => {
    if (v === null || v === undefined || Number.isNaN(v)) return;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  };
  for (const s of shown) {
    add(s.min);
    add(s.max);
    // The samples just outside the window, when drawn (see linePath).
    if (s.times?.length && s.temporal !== "setting") {
      add(s.values[0]);
      add(s.values[s.values.length - 1]);
    }
    if (s.carried_setting) add(s.carried_setting[1]);
    for (const v of s.carried_values || []) add(v);
  }
  if (capacity) return [Math.min(0, Number.isFinite(lo) ? lo : 0), Math.max(1, 1.08 * (Number.isFinite(hi) ? hi : 0))];
  if (!Number.isFinite(lo)) return [0, 1];
  if (lo === hi) return [lo - (Math.abs(lo) || 1) * 0.1, hi + (Math.abs(hi) || 1) * 0.1];
  const pad = (hi - lo) * 0.05;
  return [lo - pad, hi + pad];
}

// pointAt is the index of the point of s nearest to time t, or of the last
// one at or before it for a setting; -1 when none (or a gap).
export function pointAt(s, t, setting) {
  const ts = s.times;
  let lo = 0;
  let hi = ts.length; // first index with time > t
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ts[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  let k = lo - 1;
  if (!setting && lo < ts.length && (k < 0 || ts[lo] - t < t - ts[k])) k = lo;
  return k >= 0 && s.values[k] === s.values[k] ? k : -1;
}
