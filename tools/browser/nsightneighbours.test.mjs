// A pack script's other chunks (web/src/loader.js, the kept neighbours) in
// Debian's chromium from file://: with the idle prefetch off, a zoom loads
// its chunk's pack script; a second zoom into another chunk of the same
// pack then runs no script, draws what the CLI answers, and the kept bytes
// stay within their stated bound.

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
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-nsightneighbours-"));
  const run = path.join(work, "run");
  // 600,000 ranges a worker: 74 chunks of 8,192, the first 64 in one pack.
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "5", "-requests", "150", "-sources", "aiperf,frontend,workers,nsight", "-nsight-ranges", "600000"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  report = buildFrom(run, path.join(work, "report"));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test("a zoom into a chunk an earlier pack script delivered runs no script and draws the CLI's ranges", async () => {
  const decode = cli(report, "profiles", { worker: "decode-0" }).items[0];
  assert.equal(decode.event_count, 600_000);
  const { page, problems } = await open(browser.context, `${fileURL(report)}?nsight-prefetch-bytes=0`);
  try {
    const [a0, a1] = decode.imported_range;
    const w = (6_000 / decode.event_count) * (a1 - a0);
    const scripts0 = await page.evaluate(() => traceExplorer.detailDataStatus().scriptsLoaded);
    await page.evaluate(async (id) => traceExplorer.inspectNsys({ profile: id, from: 0, to: 1e-3 }), decode.id);
    const zoom = (from, to) =>
      page.evaluate(
        async ({ from, to, id }) => {
          const x = traceExplorer;
          const before = x.detailDataStatus();
          x.selectRange(from, to);
          await x.whenDetailsReady();
          const canvas = document.querySelector(`.nsight-canvas[data-profile="${id}"]`);
          const after = x.detailDataStatus();
          return { mode: canvas.dataset.mode, drawn: Number(canvas.dataset.drawn), load: performance.getEntriesByName("dsight:nsight-render").at(-1).detail.load, scripts: after.scriptsLoaded - before.scriptsLoaded, status: after };
        },
        { from, to, id: decode.id },
      );
    // Chunks ~9 and ~22 of 74: both in the first pack of 64.
    const first = a0 + (a1 - a0) * 0.12;
    const second = a0 + (a1 - a0) * 0.3;
    const one = await zoom(first, first + w);
    assert.equal(one.mode, "exact");
    // The Nsight section's first view and this zoom loaded the pack.
    assert.ok(one.status.scriptsLoaded - scripts0 >= 1, `the first zoom and view ran ${one.status.scriptsLoaded - scripts0} scripts`);
    const n = one.status.neighbours;
    assert.ok(n.parts >= 30 && n.bytes > 0 && n.bytes <= n.maxBytes, JSON.stringify(n));

    const two = await zoom(second, second + w);
    assert.equal(two.mode, "exact");
    assert.equal(two.scripts, 0, `the second zoom ran ${two.scripts} scripts: ${JSON.stringify(two.load)}`);
    assert.ok(two.load.neighbours >= 1 && two.load.shards === two.load.neighbours, JSON.stringify(two.load));
    assert.equal(two.drawn, cli(report, "nsys", { profile: decode.id, from: second, to: second + w, limit: 0 }).total);
    // The kept part a zoom took is no longer held twice.
    assert.equal(two.status.neighbours.parts, n.parts - two.load.neighbours);
    const args = { profile: decode.id, from: second, to: second + w, limit: 20, offset: 100 };
    const got = await page.evaluate(async (a) => traceExplorer.queryNsys(a), args);
    const want = cli(report, "nsys", args);
    assert.equal(got.total, want.total);
    assert.deepEqual(got.items.map((i) => [i.rowid, i.globalTid, i.start, i.end, i.name]), want.items.map((i) => [i.rowid, i.global_tid, i.start, i.end, i.name]));
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
