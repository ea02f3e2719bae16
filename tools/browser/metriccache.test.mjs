// The page's metric shard cache, in Debian's chromium from file:// and from
// a loopback HTTP server: with the budget lowered by ?metric-cache-bytes,
// browsing families in turn keeps metricDataStatus() within the budget,
// evicts, reloads what it evicted, and answers exactly as before (and as
// the CLI); a chart of an evicted family draws again. The knob never
// raises the budget.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { execFileSync } from "node:child_process";
import { buildReport, cli, BIN } from "./fixture.mjs";

let fx;
let browser;
let server;
let families; // [{ name, bytes, shards }] with metric shards, largest first
let budget;

before(async () => {
  fx = buildReport({ seed: 1, hostile: true });
  browser = await launch();
  server = await serve(fx.report);
  const sizes = new Map();
  for (const s of cli(fx.report, "metrics", { limit: 1000 }).items) {
    if (!s.shard) continue;
    const f = sizes.get(s.name) || { name: s.name, shards: new Map() };
    f.shards.set(s.shard.id, s.shard.decoded_bytes);
    sizes.set(s.name, f);
  }
  families = [...sizes.values()]
    .map((f) => ({ name: f.name, shards: f.shards.size, bytes: [...f.shards.values()].reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 8);
  // Room for two of the largest families, not for the eight browsed.
  budget = 2 * families[0].bytes + 1000;
  assert.ok(families.length === 8 && families.reduce((a, f) => a + f.bytes, 0) > 2 * budget, "the fixture has enough metric data");
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

function withinBudget(st, what) {
  assert.ok(st.cachedBytes <= st.maxCachedBytes && st.cachedPoints <= st.maxCachedPoints, `${what}: ${JSON.stringify(st)}`);
  assert.equal(st.pendingShards, 0, what);
}

for (const mode of ["file", "http"]) {
  const url = () => `${mode === "file" ? fileURL(fx.report) : server.url}?metric-cache-bytes=${budget}`;

  test(`${mode}: browsing families stays within the cache budget and answers the same after reloads`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      const d = (await page.evaluate(() => traceExplorer.describe())).meta.duration;
      let st = await page.evaluate(() => traceExplorer.metricDataStatus());
      assert.equal(st.maxCachedBytes, budget);
      assert.ok(Number.isInteger(st.maxCachedPoints) && st.maxCachedPoints > 0, JSON.stringify(st));

      const first = new Map();
      for (const f of families) {
        const args = { name: f.name, from: 0, to: d, points: true };
        first.set(f.name, await page.evaluate((a) => traceExplorer.queryMetrics(a), args));
        st = await page.evaluate(() => traceExplorer.metricDataStatus());
        withinBudget(st, f.name);
        // The family just answered is held, unless it alone exceeds the budget.
        if (f.bytes <= budget) assert.ok(st.cachedShards >= f.shards && st.cachedBytes >= f.bytes, `${f.name} kept: ${JSON.stringify(st)}`);
      }
      const evicted = st.evictedShards;
      assert.ok(evicted > 0, `browsing evicted nothing: ${JSON.stringify(st)}`);
      const fromCLI = execFileSync(BIN, ["query", fx.report, "page_metrics", "--internal", "--name", families[0].name, "--from", "0", "--to", String(d), "--points=true"], { encoding: "utf8", maxBuffer: 256 << 20 });
      assert.deepEqual(first.get(families[0].name), JSON.parse(fromCLI));

      // Asked again in the same order, every family was evicted meanwhile:
      // each is reloaded and answers as the first time.
      for (const f of families) {
        const again = await page.evaluate((a) => traceExplorer.queryMetrics(a), { name: f.name, from: 0, to: d, points: true });
        assert.deepEqual(again, first.get(f.name), f.name);
        withinBudget(await page.evaluate(() => traceExplorer.metricDataStatus()), `${f.name} again`);
      }
      st = await page.evaluate(() => traceExplorer.metricDataStatus());
      assert.ok(st.evictedShards > evicted, `re-asking reloaded nothing: ${JSON.stringify(st)}`);
      console.log(`# ${mode}: ${families.length} families (${families.reduce((a, f) => a + f.bytes, 0)} B) browsed twice within ${budget} B: ${JSON.stringify(st)}`);

      // A chart of a family evicted by the questions draws again.
      const evictedFamily = families[families.length - 3].name;
      await page.evaluate((metric) => traceExplorer.setState({ metric, pinnedMetrics: [] }), evictedFamily);
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      assert.equal(await page.locator(".metric-card").first().getAttribute("data-metric-name"), evictedFamily);
      assert.ok((await page.locator(".ds-metric-chart").first().getAttribute("data-drawn-ids")).length > 0);
      withinBudget(await page.evaluate(() => traceExplorer.metricDataStatus()), "after the chart");
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test("the knob only lowers the budget", async () => {
  const { page, problems } = await open(browser.context, `${fileURL(fx.report)}?metric-cache-bytes=${2 ** 40}`);
  try {
    const st = await page.evaluate(() => traceExplorer.metricDataStatus());
    assert.equal(st.maxCachedBytes, 64 * 1024 * 1024);
    assert.equal(st.maxCachedPoints, 4000000);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
