// A core of several parts (a 20,000-request AIPerf-only run: its requests
// frame alone spans two parts) is put together in one buffer on the page
// (web/src/framed.js): of its bytes only the small shared parts and the
// inflated frames are written a second time, where the page joined the
// parts and then the frames (twice the shard); and the page's answers over
// it equal the CLI's.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { launch, open, fileURL } from "./harness.mjs";
import { buildReport, cli } from "./fixture.mjs";

let fx;
let browser;

before(async () => {
  fx = buildReport({ seed: 5, requests: 20000, hostile: false, sources: "aiperf", flags: ["--no-sqlite"] });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

test("a framed core of several parts is written once, and answers as the CLI does", async () => {
  const core = JSON.parse(fs.readFileSync(`${fx.report}/manifest.json`, "utf8")).entry.core;
  assert.equal(core.encoding, "frames");
  assert.ok(core.parts.length >= 3, `the core has ${core.parts.length} parts`);
  const { page, problems } = await open(browser.context, fileURL(fx.report), { timeoutMs: 60000 });
  assert.deepEqual(problems, []);
  const got = await page.evaluate(async () => {
    const m = performance.getEntriesByName("dsight:core-load")[0];
    const te = window.traceExplorer;
    return { copied: m && m.detail.copied_bytes, summary: await te.query("summary", {}), requests: await te.query("requests", { limit: 50 }), sessions: await te.query("sessions", { limit: 20 }) };
  });
  const small = core.frames.filter((f) => f.bytes < 128 << 10).reduce((n, f) => n + f.decoded_bytes, 0);
  assert.ok(Number.isInteger(got.copied), `no copied_bytes in dsight:core-load (${got.copied})`);
  assert.ok(got.copied <= small, `${got.copied} of the core's ${core.decoded_bytes} bytes written twice; its small frames hold ${small}`);
  assert.deepEqual(got.summary, cli(fx.report, "summary"));
  assert.deepEqual(got.requests, cli(fx.report, "requests", { limit: 50 }));
  assert.deepEqual(got.sessions, cli(fx.report, "sessions", { limit: 20 }));
  await page.close();
});

// The run's in-flight series is past the size from which a summary is a
// segmented gzip member (docs/format/shard.md): the page inflates it whole
// with DecompressionStream, the CLI only the segments a question reads,
// and both answer alike.
test("a segmented metric summary answers on the page as the CLI answers from its segments", async () => {
  const name = "session_in_flight_requests";
  const d = cli(fx.report, "summary").meta.duration;
  const asks = [{ name, from: d / 2, to: d / 2 + 5 }, { name, points: true }, { name, from: d / 4, to: d / 2, points: true, pixels: 300 }];
  const want = asks.map((a) => cli(fx.report, "metrics", a));
  assert.ok(want[0].items[0].shard.decoded_bytes >= 256 << 10, `the summary is ${want[0].items[0].shard.decoded_bytes} bytes`);
  const { page, problems } = await open(browser.context, fileURL(fx.report), { timeoutMs: 60000 });
  assert.deepEqual(problems, []);
  const got = await page.evaluate(async (asks) => {
    const out = [];
    for (const a of asks) out.push(await window.traceExplorer.query("metrics", a));
    return out;
  }, asks);
  got.forEach((g, k) => assert.deepEqual(g, want[k], JSON.stringify(asks[k])));
  await page.close();
});
