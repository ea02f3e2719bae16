// How an exact Nsight window becomes rectangles, and the canvas they are
// drawn on. A zoom between the density and the exact ranges is the
// Nsight section's hottest path: it allocates nothing per range or pixel
// column here (the column state lives in scratch arrays kept between
// draws), and the canvas keeps its pixels from one mode to the other.

import { laneX } from "./timeaxis.js";

// NSYS_ROW_FLOATS must match nsightdata.js (the engine's row layout:
// start, end, name index, thread index, lane).
const ROW = 5;

// A pixel column of sub-pixel ranges on one lane: where it is, the names
// in it with the time each covers, and its rows. The arrays are per lane
// key (thread × 8 + lane), CAP entries a key, grown when a column holds
// more names or rows than fit.
const scratch = { keys: 0, cap: 0, x: null, y: null, nNames: null, names: null, time: null, nRows: null, rows: null, shared: null };

function ready(keys, n) {
  if (keys > scratch.keys || !scratch.cap) grow(Math.max(keys, scratch.keys, 64), Math.max(scratch.cap, 8));
  scratch.x.fill(-1, 0, keys);
  if (!scratch.shared || scratch.shared.length < n) scratch.shared = new Uint8Array(Math.max(n, 1024));
  else scratch.shared.fill(0, 0, n);
}

function grow(keys, cap) {
  const old = scratch.cap ? { ...scratch } : null;
  scratch.keys = keys;
  scratch.cap = cap;
  scratch.x = new Int32Array(keys).fill(-1);
  scratch.y = new Float64Array(keys);
  scratch.nNames = new Int32Array(keys);
  scratch.names = new Int32Array(keys * cap);
  scratch.time = new Float64Array(keys * cap);
  scratch.nRows = new Int32Array(keys);
  scratch.rows = new Int32Array(keys * cap);
  if (!old) return;
  // Open columns survive a grow: copy each key's entries to its new place.
  for (let k = 0; k < old.keys; k++) {
    scratch.x[k] = old.x[k];
    scratch.y[k] = old.y[k];
    scratch.nNames[k] = old.nNames[k];
    scratch.nRows[k] = old.nRows[k];
    scratch.names.set(old.names.subarray(k * old.cap, k * old.cap + old.nNames[k]), k * cap);
    scratch.time.set(old.time.subarray(k * old.cap, k * old.cap + old.nNames[k]), k * cap);
    scratch.rows.set(old.rows.subarray(k * old.cap, k * old.cap + old.nRows[k]), k * cap);
  }
}

// exactRects lays out an exact window's rows (the engine's flat rows,
// ROW floats each) on a lane w px wide over the window s: a range a pixel
// wide or more is its own rectangle; ranges narrower than a pixel would
// overlap in the pixel columns they touch, so each such column is one
// rectangle, coloured by the name holding most of its time. Every range
// keeps its pixels and no column is painted that no range covers, while a
// lane costs at most a rectangle per pixel column. fill(name, x, y, width)
// receives each rectangle (y from laneY(thread, lane)); label(name, x0, x1,
// y) each range wide enough to hold its name. Returns the rectangle count
// and how many ranges share a column with another.
export function exactRects(s, w, data, laneY, threads, fill, label) {
  const n = data.length / ROW;
  const keys = Math.max(threads, 1) * 8;
  ready(keys, n);
  const sc = scratch;
  let rects = 0;
  const flush = (key) => {
    rects++;
    const base = key * sc.cap;
    let best = 0;
    for (let k = 1; k < sc.nNames[key]; k++) if (sc.time[base + k] > sc.time[base + best]) best = k;
    fill(sc.names[base + best], sc.x[key], sc.y[key], 1);
    if (sc.nRows[key] > 1) for (let k = 0; k < sc.nRows[key]; k++) sc.shared[sc.rows[base + k]] = 1;
    sc.x[key] = -1;
  };
  for (let i = 0; i < n; i++) {
    const o = i * ROW;
    const name = data[o + 2];
    const key = data[o + 3] * 8 + data[o + 4];
    const y = laneY(data[o + 3], data[o + 4]);
    const x0 = Math.max(laneX(s, data[o]), 0) * w;
    const x1 = Math.min(laneX(s, data[o + 1]), 1) * w;
    if (x1 - x0 >= 1) {
      if (sc.x[key] >= 0) flush(key);
      rects++;
      fill(name, x0, y, x1 - x0 - (x1 - x0 > 3 ? 1 : 0));
      if (x1 - x0 > 40) label(name, x0, x1, y);
      continue;
    }
    for (let x = Math.floor(x0), last = Math.max(Math.ceil(x1) - 1, x); x <= last; x++) {
      if (sc.x[key] >= 0 && sc.x[key] !== x) flush(key);
      if (sc.x[key] < 0) {
        sc.x[key] = x;
        sc.y[key] = y;
        sc.nNames[key] = 0;
        sc.nRows[key] = 0;
      }
      let base = key * sc.cap;
      if (sc.nRows[key] === 0 || sc.rows[base + sc.nRows[key] - 1] !== i) {
        if (sc.nRows[key] === sc.cap) base = key * grow2();
        sc.rows[base + sc.nRows[key]++] = i;
      }
      let k = 0;
      while (k < sc.nNames[key] && sc.names[base + k] !== name) k++;
      if (k === sc.nNames[key]) {
        if (k === sc.cap) base = key * grow2();
        sc.names[base + k] = name;
        sc.time[base + k] = 0;
        sc.nNames[key]++;
      }
      sc.time[base + k] += Math.max(Math.min(x1, x + 1) - Math.max(x0, x), 1e-9);
    }
  }
  for (let key = 0; key < keys; key++) if (sc.x[key] >= 0) flush(key);
  let merged = 0;
  for (let i = 0; i < n; i++) merged += sc.shared[i];
  return { rects, merged };
}

function grow2() {
  grow(scratch.keys, scratch.cap * 2);
  return scratch.cap;
}

// A canvas's pixels are reallocated whenever its width or height is set,
// and a zoom from the density (44 px) to the exact lanes (up to 8 threads
// of 5 lanes) and back would set the height each time. The canvas keeps
// the tallest height it has had instead, and its lane clips it to what the
// drawing needs; only that part is cleared before the next drawing. It
// grows only when a drawing needs more: a canvas sized for 8 threads from
// the start would cost its first frame the whole bitmap (~3.4 MB at
// 1,160 px wide) when most profiles draw a few threads.
export const LANE_H = 16;
export const LANE_GAP = 2;
const cleared = new WeakMap(); // canvas → CSS px height its last drawing used

// sizeCanvas prepares canvas (inside lane) for a drawing height CSS px
// tall and width px wide, and returns its context.
export function sizeCanvas(canvas, lane, width, height) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(width, 1);
  const tall = Math.max(height, Math.round(canvas.height / dpr) || 0);
  const [pw, ph] = [Math.round(w * dpr), Math.round(tall * dpr)];
  const style = canvas.style;
  if (style.width !== `${w}px`) style.width = `${w}px`;
  if (style.height !== `${tall}px`) style.height = `${tall}px`;
  if (lane.style.height !== `${height}px`) lane.style.height = `${height}px`;
  let fresh = false;
  if (canvas.width !== pw) (canvas.width = pw), (fresh = true);
  if (canvas.height !== ph) (canvas.height = ph), (fresh = true);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (!fresh) ctx.clearRect(0, 0, w, cleared.get(canvas) ?? tall);
  cleared.set(canvas, height);
  ctx.textBaseline = "alphabetic"; // kept pixels keep the last drawing's state
  return { ctx, w };
}
