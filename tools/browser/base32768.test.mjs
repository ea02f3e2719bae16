// The page's base 32768 decoder (web/src/base32768.js), in Node: the
// grouped decoder gives back what a unit-at-a-time encoder of the format
// (internal/shard/envelope16.go) wrote, at every length and offset, names
// a bad unit, and decodes a real report's payload scripts to bytes whose
// SHA-256 is their name.

import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { base32768ToBytes, base32768Into, base32768Length } from "../../web/src/base32768.js";
import { buildReport } from "./fixture.mjs";

// encode is the format as envelope16.go states it: 15 bits a unit from
// U+3000, most significant first; 7 bits or fewer left go in a last unit
// from U+B000, zero-padded.
function encode(bytes) {
  let s = "";
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    if (bits >= 15) {
      bits -= 15;
      s += String.fromCharCode(0x3000 + ((acc >>> bits) & 0x7fff));
      acc &= (1 << bits) - 1;
    }
  }
  if (bits > 7) s += String.fromCharCode(0x3000 + ((acc << (15 - bits)) & 0x7fff));
  else if (bits > 0) s += String.fromCharCode(0xb000 + ((acc << (7 - bits)) & 0x7f));
  return s;
}

test("the grouped decoder gives back every length's bytes, into any offset", () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  for (let n = 0; n < 300; n++) {
    const bytes = Uint8Array.from({ length: n }, rnd);
    const text = encode(bytes);
    assert.equal(base32768Length(text), n, `length ${n}`);
    assert.deepEqual(base32768ToBytes(text), bytes, `length ${n}`);
    const out = new Uint8Array(n + 10).fill(0xee);
    assert.equal(base32768Into(text, out, 3), n);
    assert.deepEqual(out.subarray(3, 3 + n), bytes, `length ${n} at 3`);
    assert.ok(out.subarray(0, 3).every((b) => b === 0xee) && out.subarray(3 + n).every((b) => b === 0xee), `length ${n}: nothing written outside`);
  }
  const ones = new Uint8Array(4096).fill(255);
  assert.deepEqual(base32768ToBytes(encode(ones)), ones);
});

test("a unit outside the alphabet is named, wherever it falls in a group", () => {
  const text = encode(new Uint8Array(64).fill(9));
  for (const at of [0, 5, 7, 8, 30, text.length - 2]) {
    const bad = text.slice(0, at) + "a" + text.slice(at + 1);
    assert.throws(() => base32768ToBytes(bad), new RegExp(`character ${at} is not base 32768`));
  }
});

test("a real report's payload scripts decode to bytes named by their SHA-256", () => {
  const fx = buildReport({ seed: 3, requests: 200, hostile: false, sources: "aiperf" });
  const manifest = JSON.parse(fs.readFileSync(path.join(fx.report, "manifest.json"), "utf8"));
  const parts = [...manifest.entry.engine.parts, ...manifest.entry.core.parts];
  assert.ok(parts.length >= 2);
  for (const p of parts) {
    const src = fs.readFileSync(path.join(fx.report, p.path)).toString("utf16le");
    const text = src.slice(src.indexOf("/*") + 2, src.lastIndexOf("*/"));
    const bytes = base32768ToBytes(text);
    assert.equal(crypto.createHash("sha256").update(bytes).digest("hex"), p.id, p.path);
  }
});
