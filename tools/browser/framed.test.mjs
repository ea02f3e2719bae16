// A framed shard put together in one buffer (web/src/framed.js), in Node:
// the parts inside identity frames are decoded straight into the raw
// shard, so of a shard that is mostly identity frames only the bytes of
// the small shared parts and the inflated frames are written twice; the
// result is the raw shard, and a frame of the wrong size is refused.

import { test } from "node:test";
import assert from "node:assert/strict";
import zlib from "node:zlib";
import { framePlan, assembleFrames } from "../../web/src/framed.js";

function bytes(n, seed) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  return out;
}

// framed builds a descriptor and its stored payload the way the writer
// cuts one: a frame of big bytes or more starts a part and ends one.
function framed(raws, { gzip, partBytes = 1000, big = 300 }) {
  const frames = [];
  const stored = [];
  raws.forEach((raw, k) => {
    const s = gzip[k] ? new Uint8Array(zlib.gzipSync(raw)) : raw;
    frames.push({ bytes: s.length, decoded_bytes: raw.length, ...(gzip[k] ? {} : { encoding: "identity" }) });
    stored.push(s);
  });
  const parts = [];
  let cur = [];
  let curBytes = 0;
  const flush = () => {
    if (curBytes) parts.push(cur);
    cur = [];
    curBytes = 0;
  };
  stored.forEach((s, k) => {
    const alone = s.length >= big;
    if (alone) flush();
    for (let at = 0; at < s.length; ) {
      const n = Math.min(s.length - at, partBytes - curBytes);
      cur.push(s.subarray(at, at + n));
      curBytes += n;
      at += n;
      if (curBytes === partBytes) flush();
    }
    if (alone) flush();
  });
  flush();
  const partBufs = parts.map((ps) => {
    const b = new Uint8Array(ps.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of ps) b.set(p, (at += p.length) - p.length);
    return b;
  });
  const total = raws.reduce((n, r) => n + r.length, 0);
  const desc = { encoding: "frames", decoded_bytes: total, frames, parts: partBufs.map((b) => ({ bytes: b.length })) };
  const raw = new Uint8Array(total);
  let at = 0;
  for (const r of raws) raw.set(r, (at += r.length) - r.length);
  return { desc, partBufs, raw };
}

// decode stands for the page's base 32768 decode: into a part's place
// when the plan gives it one, else into an array of its own.
function decode(plan, partBufs) {
  return partBufs.map((b, k) => {
    const d = plan.dests[k];
    if (!d) return b.slice();
    d.set(b);
    return d;
  });
}

test("a framed shard's big identity frames are written once, into the raw shard", async () => {
  const zeros = new Uint8Array(700); // compresses
  const raws = [bytes(11, 1), bytes(40, 2), zeros, bytes(5000, 3), bytes(20, 4), bytes(1200, 5), new Uint8Array(900), bytes(4, 6)];
  const gzip = [false, false, true, false, false, false, true, false];
  const { desc, partBufs, raw } = framed(raws, { gzip });
  const plan = framePlan(desc);
  assert.ok(plan);
  const direct = plan.dests.reduce((n, d) => n + (d ? d.length : 0), 0);
  // The 20-byte frame between the big ones is a part of its own, so it too.
  assert.equal(direct, 5000 + 20 + 1200, "every part inside one identity frame has its place");
  const { bytes: got, copied } = await assembleFrames(plan, decode(plan, partBufs));
  assert.equal(got.buffer, plan.out.buffer);
  assert.deepEqual(got, raw);
  assert.equal(copied, 11 + 40 + 700 + 900 + 4, "only the small frames' bytes and the inflated ones are written again");
});

test("identity frames split over shared and own parts land in place", async () => {
  for (const partBytes of [7, 64, 333, 4096]) {
    const raws = [bytes(11, 9), bytes(50, 8), bytes(2500, 7), new Uint8Array(400), bytes(260, 6), bytes(4, 5)];
    const { desc, partBufs, raw } = framed(raws, { gzip: [false, false, false, true, false, false], partBytes });
    const plan = framePlan(desc);
    const { bytes: got } = await assembleFrames(plan, decode(plan, partBufs));
    assert.deepEqual(got, raw, `parts of ${partBytes} bytes`);
  }
});

test("a frame of the wrong size is refused, and sizes that do not add up leave no plan", async () => {
  const raws = [bytes(11, 1), new Uint8Array(500), bytes(4, 2)];
  const { desc, partBufs } = framed(raws, { gzip: [false, true, false] });
  const lying = structuredClone(desc);
  lying.frames[1].decoded_bytes = 499;
  lying.decoded_bytes -= 1;
  const plan = framePlan(lying);
  await assert.rejects(assembleFrames(plan, decode(plan, partBufs)), /inflates past its 499 bytes/);
  const short = structuredClone(desc);
  short.decoded_bytes += 1;
  assert.equal(framePlan(short), null);
  const gz = structuredClone(desc);
  gz.encoding = undefined;
  assert.equal(framePlan(gz), null);
});
