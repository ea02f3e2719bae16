// Nsight range chunks packed several to a script (internal/report/packs.go,
// shard.Pack16) in Debian's chromium from file://: with the idle prefetch
// off, a question or a zoom over a window spanning N chunks runs at most
// ceil(N / PACK_PARTS) payload scripts, answers what the CLI answers, and
// leaves no payload script element in the document.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { launch, open, fileURL } from "./harness.mjs";
import { cli, buildFrom, ROOT } from "./fixture.mjs";

// internal/report PackParts: the generated chunks (a few hundred bytes of
// gzip each) fill a pack by count long before its 512 KiB.
const PACK_PARTS = 64;

let work;
let report;
let browser;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-nsightpacks-"));
  const run = path.join(work, "run");
  // 600,000 ranges a worker: 74 chunks of 8,192, two packs.
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "5", "-requests", "150", "-sources", "aiperf,frontend,workers,nsight", "-nsight-ranges", "600000"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  report = buildFrom(run, path.join(work, "report"));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// ask runs one question in a fresh engine cache and reports the chunks it
// left decoded (every one it read: a name filter reads them all), the
// payload scripts run for it and those left in the document.
async function ask(page, fn, args) {
  return page.evaluate(
    async ({ fn, args }) => {
      const x = traceExplorer;
      const before = x.detailDataStatus();
      let answer;
      if (fn === "queryNsys") answer = await x.queryNsys(args);
      else {
        x.selectRange(args.from, args.to);
        await x.whenDetailsReady();
        const canvas = document.querySelector(`.nsight-canvas[data-profile="${args.profile}"]`);
        answer = { mode: canvas.dataset.mode, drawn: Number(canvas.dataset.drawn), load: performance.getEntriesByName("dsight:nsight-render").at(-1).detail.load };
      }
      const after = x.detailDataStatus();
      // Scripts still running (other views' loads) are in the document
      // until they have run; then none is.
      for (let k = 0; k < 200 && x.detailDataStatus().scriptsInDocument > 0; k++) await new Promise((r) => setTimeout(r, 25));
      return {
        answer,
        chunks: after.cachedChunks - before.cachedChunks,
        scripts: after.scriptsLoaded - before.scriptsLoaded,
        inDocument: document.querySelectorAll('script[src*="detail/"]').length,
        status: x.detailDataStatus(),
      };
    },
    { fn, args },
  );
}

test("a window spanning N chunks runs at most ceil(N / pack) scripts, and none stays in the document", async () => {
  const decode = cli(report, "profiles", { worker: "decode-0" }).items[0];
  assert.equal(decode.event_count, 600_000);
  const dur = cli(report, "summary").meta.duration;
  // The whole run, and its first half, each in a fresh page: every chunk
  // in the window is read.
  for (const to of [dur, dur / 2]) {
    const { page, problems } = await open(browser.context, `${fileURL(report)}?nsight-prefetch-bytes=0`);
    try {
      await page.evaluate(async (id) => traceExplorer.inspectNsys({ profile: id, from: 0, to: 1e-3 }), decode.id);
      const args = { profile: decode.id, from: 0, to, name: "scheduler", limit: 50 };
      const got = await ask(page, "queryNsys", args);
      const want = cli(report, "nsys", args);
      assert.equal(got.answer.total, want.total);
      assert.deepEqual(got.answer.items.map((i) => [i.rowid, i.globalTid]), want.items.map((i) => [i.rowid, i.global_tid]));
      assert.ok(got.chunks >= 30, `window [0, ${to}] read ${got.chunks} chunks`);
      assert.ok(got.scripts >= 1 && got.scripts <= Math.ceil(got.chunks / PACK_PARTS), `${got.chunks} chunks took ${got.scripts} scripts`);
      assert.equal(got.inDocument, 0, "payload scripts are removed once run");
      assert.equal(got.status.scriptsInDocument, 0);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  }
});

test("a zoom to exact ranges runs at most ceil(N / pack) scripts for its N chunks", async () => {
  const decode = cli(report, "profiles", { worker: "decode-0" }).items[0];
  const dur = cli(report, "summary").meta.duration;
  const { page, problems } = await open(browser.context, `${fileURL(report)}?nsight-prefetch-bytes=0`);
  try {
    // Windows of ~6,000 ranges, at a tenth and at nine tenths of the run.
    const w = (6_000 / decode.event_count) * (decode.imported_range[1] - decode.imported_range[0]);
    await page.evaluate(async (id) => traceExplorer.inspectNsys({ profile: id, from: 0, to: 1e-3 }), decode.id);
    for (const at of [0.1, 0.9]) {
      const args = { profile: decode.id, from: dur * at, to: dur * at + w };
      const got = await ask(page, "zoom", args);
      assert.equal(got.answer.mode, "exact");
      const n = got.answer.load.shards;
      assert.ok(n >= 1, JSON.stringify(got.answer.load));
      assert.ok(got.scripts <= Math.ceil(n / PACK_PARTS), `${n} chunks took ${got.scripts} scripts`);
      assert.equal(got.answer.drawn, cli(report, "nsys", { ...args, limit: 0 }).total);
      assert.equal(got.inDocument, 0);
    }
    fs.mkdirSync(path.join(ROOT, "tools", "browser", "out"), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, "tools", "browser", "out", "nsightpacks.png"), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
