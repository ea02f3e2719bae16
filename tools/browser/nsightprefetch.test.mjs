// The Nsight section's idle prefetch in Debian's chromium from file://:
// once a profile is shown and the page is idle, the compressed payloads of
// its chunks nearest the view are held (detailDataStatus().prefetch) and
// handed to the engine as spare shards within its budget, and a zoom to a
// window never viewed then loads nothing, answering what the CLI answers. A view change cancels the
// prefetch in progress; with ?nsight-prefetch-bytes=0 there is none.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { launch, open, fileURL } from "./harness.mjs";
import { cli, buildFrom, ROOT } from "./fixture.mjs";

let work;
let report;
let browser;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-nsightprefetch-"));
  const run = path.join(work, "run");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "4", "-requests", "150", "-sources", "aiperf,frontend,workers,nsight", "-nsight-ranges", "30000"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  report = buildFrom(run, path.join(work, "report"));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// zoomAfterIdle shows profile id at its first window, waits for the idle
// prefetch to end, then zooms to its last window (never viewed) and
// reports the detail scripts loaded by each step.
async function zoomAfterIdle(page, id, first, last) {
  return page.evaluate(
    async ({ id, first, last }) => {
      const x = traceExplorer;
      // Payload scripts are removed once run: the loader counts them.
      const scripts = () => x.detailDataStatus().scriptsLoaded;
      await x.inspectNsys({ profile: id, from: first[0], to: first[1] });
      const shown = { status: x.detailDataStatus(), scripts: scripts() };
      // Any view change cancels a planned prefetch; the next idle time
      // plans again around the new window.
      x.selectRange(first[0], first[1] + 1e-6);
      const cancelled = x.detailDataStatus().prefetch.cancelled;
      await x.whenDetailsReady();
      for (let k = 0; k < 200 && x.detailDataStatus().prefetch.running; k++) await new Promise((r) => setTimeout(r, 25));
      const idle = { status: x.detailDataStatus(), scripts: scripts() };
      x.selectRange(last[0], last[1]);
      await x.whenDetailsReady();
      const canvas = document.querySelector(`.nsight-canvas[data-profile="${id}"]`);
      const timing = performance.getEntriesByName("dsight:nsight-render").at(-1).detail;
      const page = await x.queryNsys({ profile: id, from: last[0], to: last[1], limit: 10000 });
      return { shown, cancelled, idle, zoomed: { status: x.detailDataStatus(), scripts: scripts(), mode: canvas.dataset.mode, drawn: Number(canvas.dataset.drawn), load: timing.load }, page };
    },
    { id, first, last },
  );
}

function windows() {
  const decode = cli(report, "profiles", { worker: "decode-0" }).items[0];
  const dur = cli(report, "summary").meta.duration;
  const [a, b] = [Math.max(decode.imported_range[0], 0), Math.min(decode.imported_range[1], dur)];
  const w = (b - a) * 0.01;
  return { decode, first: [a, a + w], last: [b - w, b] };
}

test("after idle, a zoom to a never-viewed window loads no script and answers as the CLI", async () => {
  const { decode, first, last } = windows();
  assert.ok(decode.event_count >= 30000);
  const { page, problems } = await open(browser.context, fileURL(report));
  try {
    const got = await zoomAfterIdle(page, decode.id, first, last);
    assert.ok(got.cancelled >= 1, `the view change cancelled the planned prefetch: ${JSON.stringify(got.shown.status.prefetch)}`);
    const pre = got.idle.status.prefetch;
    assert.equal(pre.running, false, JSON.stringify(pre));
    assert.ok(pre.chunks >= 2 && pre.bytes > 0 && pre.bytes <= pre.maxBytes, JSON.stringify(pre));
    assert.equal(pre.maxBytes, 16 << 20);
    // Prefetched payloads are handed to the engine as spare shards, within
    // its decoded budget less the views' room.
    assert.ok(got.idle.status.cachedChunks > got.shown.status.cachedChunks, JSON.stringify(got.idle.status));
    assert.equal(pre.decodedChunks, got.idle.status.cachedChunks - got.shown.status.cachedChunks, JSON.stringify(pre));
    assert.ok(got.idle.status.decodedBytes + (8 << 20) <= got.idle.status.maxDecodedBytes + 512 * 1024, JSON.stringify(got.idle.status));
    assert.ok(got.idle.scripts > got.shown.scripts, "the prefetch loaded scripts in idle time");

    // The zoom: no script and no load, its chunks already decoded.
    assert.equal(got.zoomed.scripts, got.idle.scripts, "the zoom loaded no script");
    assert.equal(got.zoomed.load.shards, 0, JSON.stringify(got.zoomed.load));
    assert.equal(got.zoomed.load.script_ms, 0);
    // Small chunks are inflated by the engine, not a DecompressionStream.
    assert.equal(got.zoomed.load.inflate_ms, 0);
    assert.equal(got.zoomed.mode, "exact");
    const want = cli(report, "nsys", { profile: decode.id, from: last[0], to: last[1], limit: 10000 });
    assert.ok(want.total > 0);
    assert.equal(got.zoomed.drawn, want.total);
    assert.equal(got.page.total, want.total);
    assert.deepEqual(got.page.items.map((i) => [i.rowid, i.start, i.end, i.name, i.globalTid]), want.items.map((i) => [i.rowid, i.start, i.end, i.name, i.global_tid]));
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("with ?nsight-prefetch-bytes=0 nothing is prefetched and the zoom loads its scripts", async () => {
  const { decode, first, last } = windows();
  const { page, problems } = await open(browser.context, `${fileURL(report)}?nsight-prefetch-bytes=0`);
  try {
    const got = await zoomAfterIdle(page, decode.id, first, last);
    assert.equal(got.idle.status.prefetch.chunks, 0);
    assert.equal(got.idle.status.prefetch.maxBytes, 0);
    assert.equal(got.idle.scripts, got.shown.scripts);
    assert.ok(got.zoomed.scripts > got.idle.scripts, "the zoom loaded its chunks' scripts");
    assert.equal(got.zoomed.load.held, 0);
    assert.equal(got.page.total, cli(report, "nsys", { profile: decode.id, from: last[0], to: last[1], limit: 0 }).total);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
