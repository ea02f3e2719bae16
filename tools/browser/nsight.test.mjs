// The page's Nsight API in Debian's chromium from file:// and from a
// loopback HTTP server: listProfiles, queryNsys and queryCpu answer what
// the CLI's profiles, nsys and cpu kinds answer for the same filters (one
// engine; only the thread id is spelled globalTid), loading the detail
// shards they need; describe().available reports the Nsight sources.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { cli, buildFrom, ROOT } from "./fixture.mjs";

let work;
let report;
let browser;
let server;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-nsight-"));
  const run = path.join(work, "run");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "4", "-requests", "150", "-sources", "aiperf,frontend,workers,nsight", "-nsight-ranges", "30000"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  report = buildFrom(run, path.join(work, "report"));
  browser = await launch();
  server = await serve(report);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const asBrowser = (a) => ({ ...a, items: a.items.map(({ global_tid, ...rest }) => ({ ...rest, globalTid: global_tid })) });

for (const mode of ["file", "http"]) {
  test(`${mode}: queryNsys, queryCpu and listProfiles equal the CLI`, async () => {
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(report) : server.url);
    try {
      const d = await page.evaluate(() => traceExplorer.describe());
      assert.equal(d.available.nvtx, true);
      assert.equal(d.available.cpu_samples, true);
      assert.equal(d.available.nsight, true);
      for (const m of ["listProfiles", "queryNsys", "queryCpu", "detailDataStatus", "whenDetailsReady"]) assert.ok(d.capabilities.includes(m), m);
      const dur = d.meta.duration;
      const profiles = cli(report, "profiles", { limit: 1000 });
      assert.deepEqual(await page.evaluate(() => traceExplorer.listProfiles()), profiles.items);
      const worker = profiles.items.find((p) => p.worker !== "frontend");
      assert.ok(worker.event_count > 8192, "a worker profile spans several detail shards");
      const cases = [
        { profile: worker.id, from: 0, to: dur, offset: 9000, limit: 50 },
        { profile: worker.id, from: dur / 3, to: dur / 3 + 2, limit: 20 },
        { name: "SCHEDULER.RUN", from: 1, to: dur / 2, limit: 10 },
        { worker: "frontend", from: 0, to: dur, limit: 100 },
      ];
      for (const c of cases) {
        const want = asBrowser(cli(report, "nsys", c));
        const got = await page.evaluate((a) => traceExplorer.queryNsys(a), c);
        assert.deepEqual(got, want, JSON.stringify(c));
        if (got.items.length) assert.match(got.items[0].globalTid, /^\d+$/);
      }
      assert.ok(asBrowser(cli(report, "nsys", cases[0])).total > 0);
      for (const c of [{ from: 0, to: dur }, { from: 1, to: dur / 2, limit: 5 }]) {
        assert.deepEqual(await page.evaluate((a) => traceExplorer.queryCpu(a), c), cli(report, "cpu", c), JSON.stringify(c));
      }
      await page.evaluate(() => traceExplorer.whenDetailsReady());
      const st = await page.evaluate(() => traceExplorer.detailDataStatus());
      assert.ok(st.cachedChunks > 0 && st.decodedBytes <= st.maxDecodedBytes, JSON.stringify(st));
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
