// Batch observations in the real page: queryIterations answers exactly what
// the CLI's iterations kind answers for the same filters, from file:// and
// http, for TRT-LLM iteration records (all five field orders) and TokenSpeed
// snapshots; out-of-bounds pages are errors; exportSelection carries the
// captured range's observations; without a timezone they stay unaligned.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { buildFrom, cli, ROOT, BIN } from "./fixture.mjs";

let work, browser;
const reports = {};
const servers = {};

function genRun(name, sources) {
  const run = path.join(work, name);
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "4", "-requests", "400", "-sources", sources], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  return run;
}

before(async () => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run make build first`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-iterations-"));
  const trt = genRun("trtllm", "aiperf,workers,trtllm");
  const ts = genRun("tokenspeed", "aiperf,workers,tokenspeed");
  reports.trtllm = buildFrom(trt, path.join(work, "trtllm-report"), "--iteration-timezone", "UTC");
  reports.tokenspeed = buildFrom(ts, path.join(work, "tokenspeed-report"), "--iteration-timezone", "UTC");
  reports.unaligned = buildFrom(trt, path.join(work, "unaligned-report"));
  browser = await launch();
  for (const [k, dir] of Object.entries(reports)) servers[k] = await serve(dir);
});

after(async () => {
  await browser?.close();
  for (const s of Object.values(servers)) await s.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// The same filters, as the page takes them and as CLI flags.
function filterSets(duration) {
  const mid = Math.round(duration * 0.4 * 1000) / 1000;
  return [
    { from: 0, to: duration },
    { from: 0, to: duration, limit: 1000 },
    { from: mid, to: mid + 30, worker: "decode-0" },
    { from: 0, to: duration, worker: "decode-0", rank: 0 },
    { from: 0, to: duration, worker: "prefill-0", offset: 3, limit: 7 },
    { from: 0, to: duration, limit: 0 },
    { from: mid, to: mid + 0.5 },
  ];
}

for (const mode of ["file", "http"]) {
  for (const kind of ["trtllm", "tokenspeed"]) {
    test(`${mode}: ${kind} queryIterations equals the CLI's iterations`, async () => {
      const report = reports[kind];
      const { page, problems } = await open(browser.context, mode === "file" ? fileURL(report) : servers[kind].url);
      try {
        const available = await page.evaluate(() => traceExplorer.describe().available.iterations);
        assert.equal(available, true);
        const duration = cli(report, "summary").meta.duration;
        let items = 0;
        for (const f of filterSets(duration)) {
          const got = await page.evaluate((o) => traceExplorer.queryIterations(o), f);
          assert.deepEqual(got, cli(report, "iterations", f), JSON.stringify(f));
          items += got.items.length;
        }
        assert.ok(items > 0, "the filters returned observations");
        const all = await page.evaluate((d) => traceExplorer.queryIterations({ from: 0, to: d, limit: 1000 }), duration);
        assert.ok(all.total > 0 && all.unaligned_rows === 0);
        const kinds = new Set(all.items.map((i) => i.kind));
        assert.deepEqual([...kinds], [kind === "trtllm" ? "trtllm_iteration" : "tokenspeed_snapshot"]);
        if (kind === "trtllm") {
          // Every field order of the generator is read.
          const all5 = cli(report, "iterations", { from: 0, to: duration, limit: 1000 });
          const formats = new Set(all5.items.map((i) => i.format));
          for (let off = 1000; off < all5.total; off += 1000) for (const i of cli(report, "iterations", { from: 0, to: duration, limit: 1000, offset: off }).items) formats.add(i.format);
          assert.deepEqual([...formats].sort(), ["trtllm-v1", "trtllm-v2", "trtllm-v3", "trtllm-v4", "trtllm-v5"]);
        } else {
          const snap = all.items.find((i) => i.running_requests !== null);
          assert.equal(snap.rank_kind, "attention_tp");
          assert.equal(snap.iteration, null);
          assert.equal(snap.time_resolution_s, 0.001);
        }
        // Pages outside 0..1000 or not whole are errors, never clamped.
        for (const bad of [{ limit: 1001 }, { limit: 1.5 }, { offset: -1 }]) {
          const err = await page.evaluate((o) => { try { traceExplorer.queryIterations(o); return null; } catch (e) { return e.message; } }, bad);
          assert.ok(err, `accepted ${JSON.stringify(bad)}`);
        }
        // The export carries the captured range's observations.
        await page.evaluate(([a, b]) => traceExplorer.selectRange(a, b), [0, duration]);
        const exported = await page.evaluate(() => traceExplorer.exportSelection());
        const st = await page.evaluate(() => traceExplorer.getState());
        assert.deepEqual(exported.batch_observations, cli(report, "iterations", { from: st.from, to: st.to, limit: 1000 }));
        assert.ok(exported.batch_observations.total > 0);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  }

  test(`${mode}: without a timezone observations stay unaligned`, async () => {
    const report = reports.unaligned;
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(report) : servers.unaligned.url);
    try {
      const duration = cli(report, "summary").meta.duration;
      const got = await page.evaluate((d) => traceExplorer.queryIterations({ from: 0, to: d }), duration);
      assert.deepEqual(got, cli(report, "iterations", { from: 0, to: duration }));
      assert.equal(got.total, 0);
      assert.ok(got.unaligned_rows > 0);
      assert.ok(cli(report, "summary").meta.limitations.some((l) => l.includes("--iteration-timezone")));
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
