// The chart path builder (web/src/metricdraw.js) without a browser: a
// recording Path2D stands in for the canvas one. linePath draws a run of
// points at one height as a single segment; the line it draws must be the
// one that joins every point.

import { test } from "node:test";
import assert from "node:assert/strict";

class RecordingPath {
  constructor() {
    this.ops = [];
  }
  moveTo(x, y) {
    this.ops.push(["M", x, y]);
  }
  lineTo(x, y) {
    this.ops.push(["L", x, y]);
  }
  rect(x, y, w, h) {
    this.ops.push(["R", x, y, w, h]);
  }
}
globalThis.Path2D = RecordingPath;
const { linePath } = await import("../../web/src/metricdraw.js");

// A chart 1,000 px wide over [0, 100] s and values [0, 10].
const u = { bbox: { left: 0, top: 0, width: 1000, height: 100 }, scales: { x: { min: 0, max: 100 }, y: { min: 0, max: 10 } } };

// joinEvery is the definition: every point joined to the next, a gap
// lifting the pen, a setting held as a step (to the gap's time, and to the
// range end after its last point), as the page drew before runs were merged.
function joinEvery(s, { from, to, stepped }) {
  const X = (t) => (t - u.scales.x.min) * 10;
  const Y = (v) => (u.scales.y.max - v) * 10;
  const ops = [];
  let pen = false;
  let py = 0;
  const to_ = (px, ny) => {
    if (!pen) ops.push(["M", px, ny]);
    else if (stepped) ops.push(["L", px, py], ["L", px, ny]);
    else ops.push(["L", px, ny]);
    pen = true;
    py = ny;
  };
  const c = s.carried_setting;
  if (stepped && c && c[1] !== null && (!s.times.length || s.times[0] > from)) to_(X(from), Y(c[1]));
  for (let k = 0; k < s.times.length; k++) {
    const v = s.values[k];
    if (Number.isNaN(v)) {
      if (stepped && pen) ops.push(["L", X(s.times[k]), py]);
      pen = false;
      continue;
    }
    to_(X(s.times[k]), Y(v));
  }
  if (stepped && pen && (!s.times.length || s.times.at(-1) < to)) ops.push(["L", X(to), py]);
  return ops;
}

// polylines splits ops into their vertex lists and leaves out what does not
// change the drawn line: repeated vertices, and a vertex between two others
// at its height.
function polylines(ops) {
  const lines = [];
  for (const [op, x, y] of ops) {
    if (op === "M") lines.push([[x, y]]);
    else {
      const line = lines.at(-1);
      const [px, py] = line.at(-1);
      if (px !== x || py !== y) line.push([x, y]);
    }
  }
  return lines.map((line) =>
    line.filter((v, i) => {
      if (i === 0 || i === line.length - 1) return true;
      const [a, b] = [line[i - 1], line[i + 1]];
      return !(a[1] === v[1] && b[1] === v[1] && a[0] <= v[0] && v[0] <= b[0]);
    }),
  );
}

function series(seed, n) {
  let state = seed;
  const rnd = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  const times = new Float64Array(n);
  const values = new Float64Array(n);
  let t = 0.5;
  let v = 5;
  for (let k = 0; k < n; k++) {
    t += rnd() < 0.05 ? 0 : rnd() * 0.2; // some points share a time
    const r = rnd();
    if (r < 0.05) v = NaN;
    else if (r < 0.6) v = Number.isNaN(v) ? 5 : v; // runs at one height
    else v = Math.round(rnd() * 10);
    times[k] = t;
    values[k] = v;
  }
  return { times, values, carried_setting: seed % 2 ? [0, 3] : null };
}

test("merged level runs draw the line that joins every point", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const s = series(seed, 1 + (seed % 50) * 7);
    for (const stepped of [false, true]) {
      const opts = { from: 0, to: 100, stepped };
      const got = linePath(u, s, opts).ops;
      assert.deepEqual(polylines(got), polylines(joinEvery(s, opts)), `seed ${seed}, stepped ${stepped}`);
    }
  }
});

test("an idle series is one segment", () => {
  const times = Float64Array.from({ length: 1000 }, (_, k) => k / 10);
  const values = new Float64Array(1000);
  for (const stepped of [false, true]) {
    const ops = linePath(u, { times, values, carried_setting: null }, { from: 0, to: 100, stepped }).ops;
    assert.deepEqual(ops, [["M", 0, 100], ["L", stepped ? 1000 : 999, 100]], `stepped ${stepped}`);
  }
});
