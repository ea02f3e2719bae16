// The exact Nsight layout (web/src/nsightdraw.js exactRects) without a
// browser, against its definition written plainly below: the same
// rectangles, counts and labels, for windows with ranges a pixel wide or
// more, columns of many sub-pixel ranges (more names and rows than the
// scratch arrays hold at first), and one scratch reused across windows of
// different thread counts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { exactRects } from "../../web/src/nsightdraw.js";

const ROW = 5;
const laneX = (s, t) => (t - s.from) / (s.to - s.from);

// definition: a range a pixel wide or more is its own rectangle; each
// pixel column of narrower ranges on a lane is one rectangle, of the name
// covering most of its time; merged counts the ranges in a column with
// another.
function definition(s, w, data, laneY) {
  const n = data.length / ROW;
  const out = [];
  const labels = [];
  const shared = new Uint8Array(n);
  const cols = new Map();
  let widest = 0; // the most names or rows a column held
  const flush = (c) => {
    widest = Math.max(widest, c.names.length, c.rows.length);
    let best = 0;
    for (let k = 1; k < c.names.length; k++) if (c.time[k] > c.time[best]) best = k;
    out.push([c.names[best], c.x, c.y, 1]);
    if (c.rows.length > 1) for (const i of c.rows) shared[i] = 1;
  };
  for (let i = 0; i < n; i++) {
    const o = i * ROW;
    const [name, key, y] = [data[o + 2], data[o + 3] * 8 + data[o + 4], laneY(data[o + 3], data[o + 4])];
    const x0 = Math.max(laneX(s, data[o]), 0) * w;
    const x1 = Math.min(laneX(s, data[o + 1]), 1) * w;
    let c = cols.get(key);
    if (x1 - x0 >= 1) {
      if (c) flush(c);
      cols.delete(key);
      out.push([name, x0, y, x1 - x0 - (x1 - x0 > 3 ? 1 : 0)]);
      if (x1 - x0 > 40) labels.push([name, x0, x1, y]);
      continue;
    }
    for (let x = Math.floor(x0), last = Math.max(Math.ceil(x1) - 1, x); x <= last; x++) {
      if (c && c.x !== x) {
        flush(c);
        c = null;
      }
      if (!c) cols.set(key, (c = { x, y, rows: [], names: [], time: [] }));
      if (c.rows.at(-1) !== i) c.rows.push(i);
      let k = c.names.indexOf(name);
      if (k < 0) k = c.names.push(name) - 1;
      c.time[k] = (c.time[k] ?? 0) + Math.max(Math.min(x1, x + 1) - Math.max(x0, x), 1e-9);
    }
  }
  for (const c of cols.values()) flush(c);
  return { rects: out, labels, merged: shared.reduce((a, b) => a + b, 0), widest };
}

// window makes rows on threads × lanes: per lane, ranges in start order
// that never overlap, with gaps and widths from a few pixels down to a
// thousandth of one, named from names.
function window(seed, threads, lanes, perLane, names, w) {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  const rows = [];
  for (let th = 0; th < threads; th++)
    for (let ln = 0; ln < lanes; ln++) {
      let t = rnd() * 0.01;
      for (let k = 0; k < perLane; k++) {
        const px = 1 / w; // a pixel of the window [0, 1]
        const width = rnd() < 0.15 ? px * (1 + rnd() * 60) : px * rnd() ** 3;
        rows.push([t, t + width, Math.floor(rnd() * names), th, ln]);
        t += width + (rnd() < 0.7 ? px * rnd() * 0.05 : px * rnd() * 4);
        if (t > 1.02) break;
      }
    }
  rows.sort((a, b) => a[0] - b[0]);
  return new Float64Array(rows.flat());
}

const sorted = (rs) => rs.map((r) => JSON.stringify(r)).sort();

test("exactRects draws what the definition draws", () => {
  const s = { from: 0.1, to: 0.9 };
  const cases = [
    [1, 3, 2, 400, 5, 800],
    [2, 8, 5, 300, 40, 1200], // columns with more names and rows than the first scratch holds
    [3, 1, 1, 5000, 12, 300],
    [4, 2, 3, 50, 3, 2000],
    [5, 8, 5, 2000, 60, 640],
  ];
  let widest = 0;
  for (const [seed, threads, lanes, perLane, names, w] of cases) {
    const data = window(seed, threads, lanes, perLane, names, w);
    const top = Array.from({ length: threads }, (_, k) => k * 92);
    const laneY = (th, ln) => top[th] + 2 + ln * 18;
    const want = definition(s, w, data, laneY);
    const rects = [];
    const labels = [];
    const got = exactRects(s, w, data, laneY, threads, (...r) => rects.push(r), (...l) => labels.push(l));
    assert.equal(got.rects, want.rects.length, `case ${seed}: rectangles`);
    assert.equal(got.merged, want.merged, `case ${seed}: merged`);
    assert.ok(want.merged > 0 || seed === 4, `case ${seed} has shared columns`);
    assert.deepEqual(sorted(rects), sorted(want.rects), `case ${seed}: the rectangles`);
    assert.deepEqual(labels, want.labels, `case ${seed}: the labels`);
    widest = Math.max(widest, want.widest);
  }
  assert.ok(widest > 16, `some column holds more than twice the first scratch's 8 entries (${widest})`);
});
