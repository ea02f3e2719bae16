// The page's Nsight API in Debian's chromium from file:// and from a
// loopback HTTP server: listProfiles, queryNsys and queryCpu answer what
// the CLI's profiles, nsys and cpu kinds answer for the same filters (one
// engine; only the thread id is spelled globalTid), loading the detail
// shards they need; describe().available reports the Nsight sources.

import { test } from "node:test";
import assert from "node:assert/strict";
import { open, fileURL } from "./harness.mjs";
import { cli } from "./fixture.mjs";
import { generatedReport } from "./suite.mjs";

const at = generatedReport("nsight", ["-seed", "4", "-requests", "150", "-sources", "aiperf,frontend,workers,nsight", "-nsight-ranges", "30000"]);

const asBrowser = (a) => ({ ...a, items: a.items.map(({ global_tid, ...rest }) => ({ ...rest, globalTid: global_tid })) });

for (const mode of ["file", "http"]) {
  test(`${mode}: queryNsys, queryCpu and listProfiles equal the CLI`, async () => {
    const { page, problems } = await open(at.browser.context, mode === "file" ? fileURL(at.report) : at.server.url);
    try {
      const d = await page.evaluate(() => traceExplorer.describe());
      assert.equal(d.available.nvtx, true);
      assert.equal(d.available.cpu_samples, true);
      assert.equal(d.available.nsight, true);
      for (const m of ["listProfiles", "queryNsys", "queryCpu", "detailDataStatus", "whenDetailsReady"]) assert.ok(d.capabilities.includes(m), m);
      const dur = d.meta.duration;
      const profiles = cli(at.report, "profiles", { limit: 1000 });
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
        const want = asBrowser(cli(at.report, "nsys", c));
        const got = await page.evaluate((a) => traceExplorer.queryNsys(a), c);
        assert.deepEqual(got, want, JSON.stringify(c));
        if (got.items.length) assert.match(got.items[0].globalTid, /^\d+$/);
      }
      assert.ok(asBrowser(cli(at.report, "nsys", cases[0])).total > 0);
      for (const c of [{ from: 0, to: dur }, { from: 1, to: dur / 2, limit: 5 }]) {
        assert.deepEqual(await page.evaluate((a) => traceExplorer.queryCpu(a), c), cli(at.report, "cpu", c), JSON.stringify(c));
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
