// The page's number labels (web/src/dom.js fmtMs, fmtInt), in Node: the
// same text as toLocaleString("en-US") gives, from formatters made once
// (the first render labels every bar on screen, several times a bar, and
// toLocaleString builds a formatter per call).

import { test } from "node:test";
import assert from "node:assert/strict";
import { fmtMs, fmtInt } from "../../web/src/dom.js";

const values = [0, -0, 0.04, 0.05, 0.15, 1, 12.345, 999.95, 1234.56, 1e6 + 0.05, -3.25, 123456789.987, Number.MAX_SAFE_INTEGER, NaN, Infinity];

test("fmtMs and fmtInt read as toLocaleString's text, unknown for no value", () => {
  for (const v of values) {
    assert.equal(fmtMs(v), `${v.toLocaleString("en-US", { maximumFractionDigits: 1 })} ms`, String(v));
    assert.equal(fmtInt(v), v.toLocaleString("en-US"), String(v));
  }
  for (const v of [null, undefined]) {
    assert.equal(fmtMs(v), "unknown");
    assert.equal(fmtInt(v), "unknown");
  }
});

test("formatting builds no formatter a call", () => {
  const made = [];
  const real = Number.prototype.toLocaleString;
  Number.prototype.toLocaleString = function (...a) {
    made.push(a);
    return real.apply(this, a);
  };
  try {
    for (let i = 0; i < 1000; i++) {
      fmtMs(i / 7);
      fmtInt(i * 1001);
    }
  } finally {
    Number.prototype.toLocaleString = real;
  }
  assert.equal(made.length, 0, "a label called toLocaleString");
});
