// The traced example in the real page: a request joined to its OTel spans
// expands into cumulative milestones, stages select and explain themselves,
// Fit Session and ↶ move the range, and every answer equals the CLI's. The
// same run built with --no-otel opens cleanly and offers no breakdown.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { execFileSync } from "node:child_process";
import { buildLifecycleRun, buildFrom, cli, OUT, ROOT } from "./fixture.mjs";

const JOINED = "11111111-1111-4111-8111-111111111111";
let work, traced, untraced, otelOnly, browser, server;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-lifecycle-"));
  const run = buildLifecycleRun(work);
  traced = buildFrom(run, path.join(work, "traced"));
  untraced = buildFrom(run, path.join(work, "untraced"), "--no-otel");
  fs.rmSync(path.join(run, "logs", "agentic"), { recursive: true });
  otelOnly = buildFrom(run, path.join(work, "otel-only"));
  browser = await launch();
  server = await serve(traced);
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

for (const mode of ["file", "http"]) {
  test(`${mode}: a traced request expands into its lifecycle`, async () => {
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(traced) : server.url);
    try {
      const lifecycle = await page.evaluate((id) => traceExplorer.getLifecycle(id), JOINED);
      assert.deepEqual(lifecycle, cli(traced, "lifecycle", { request: JOINED }));
      assert.equal(lifecycle.available, true);
      assert.deepEqual(await page.evaluate((id) => traceExplorer.getRequest(id), JOINED), cli(traced, "request", { request: JOINED }));

      await page.evaluate((id) => traceExplorer.selectRequest(id, { expand: true, fit: true }), JOINED);
      const rows = await page.evaluate(() => ({
        stageRows: [...document.querySelectorAll("[data-stage-row]")].map((r) => r.dataset.stageRow),
        current: [...document.querySelectorAll("[data-current-stage=true]")].map((s) => s.dataset.stageSpan),
        activityRows: document.querySelectorAll("[data-activity-row]").length,
        expanded: traceExplorer.getState().expandedRequests,
      }));
      const ids = lifecycle.stages.map((s) => s.id);
      // Row I of the milestone chains is [data-stage-row=I] (page-compat.md).
      assert.deepEqual(rows.stageRows, ids.map((_, k) => String(k)), "one track per stage, in order");
      assert.deepEqual(rows.current, ids, "each track highlights its own stage");
      assert.equal(rows.stageRows.length + rows.activityRows, ids.length + lifecycle.activities.length);
      assert.deepEqual(rows.expanded, [JOINED]);

      // Stages tile the request: cumulative, contiguous, summing to its duration.
      for (let k = 1; k < lifecycle.stages.length; k++) assert.equal(lifecycle.stages[k].start, lifecycle.stages[k - 1].end);
      assert.deepEqual(lifecycle.rows.at(-1), ids);

      // Clicking a stage selects it and explains it.
      await page.locator(`[data-stage-row="1"] [data-stage-span="progress:1"]`).click();
      assert.equal(await page.evaluate(() => traceExplorer.getState().span), "progress:1");
      assert.match(await page.locator(".phase-focus").innerText(), /between milestones/);

      // Fit Session from a narrower range, then back.
      const before = await page.evaluate(() => traceExplorer.selectRange(2, 4));
      await page.click("#fitSession");
      const fitted = await page.evaluate(() => traceExplorer.getState());
      assert.ok(fitted.from <= 0 && fitted.to >= 8, `Fit Session ${fitted.from}–${fitted.to}`);
      await page.click("#rangeBack");
      const back = await page.evaluate(() => traceExplorer.getState());
      assert.deepEqual([back.from, back.to], [before.from, before.to]);

      // Which worker did the work.
      const workers = await page.evaluate(() => [...document.querySelectorAll(".path-node[data-path-worker]")].map((n) => n.dataset.pathWorker));
      assert.deepEqual(workers, ["frontend", "prefill-0", "decode-0"]);

      // A client-only request has no lifecycle and cannot be expanded.
      const clientOnly = await page.evaluate(() => {
        traceExplorer.expandRequest("client-only");
        return { st: traceExplorer.getState(), lc: traceExplorer.getLifecycle("client-only") };
      });
      assert.equal(clientOnly.lc.available, false);
      assert.deepEqual(clientOnly.lc.stages, []);
      assert.ok(!clientOnly.st.expandedRequests.includes("client-only"));
      const spanError = await page.evaluate(() => {
        try {
          traceExplorer.selectSpan("progress:0");
          return null;
        } catch (e) {
          return e.message;
        }
      });
      assert.match(spanError, /Unknown span/);

      const d = cli(traced, "summary").meta.duration;
      assert.deepEqual(await page.evaluate((d) => traceExplorer.queryServerSpans({ from: 0, to: d }), d), cli(traced, "server_spans", { from: 0, to: d }));
      await page.screenshot({ path: path.join(OUT, `lifecycle-${mode}.png`), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test("--no-otel: the page opens and offers no breakdown", async () => {
  const { page, problems } = await open(browser.context, fileURL(untraced));
  try {
    const seen = await page.evaluate((id) => {
      traceExplorer.selectRequest(id, { expand: true });
      return {
        available: traceExplorer.describe().available,
        toggles: document.querySelectorAll("[data-stage-row]").length,
        expand: document.querySelector("#expandTTFT"),
        otel: traceExplorer.describe().meta.otel_enabled,
        lc: traceExplorer.getLifecycle(id).available,
      };
    }, JOINED);
    assert.equal(seen.available.request_breakdown, false);
    assert.equal(seen.toggles, 0);
    assert.equal(seen.expand, null);
    assert.equal(seen.otel, false);
    assert.equal(seen.lc, false);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("OTel only: empty timeline, coverage and queries kept", async () => {
  const { page, problems } = await open(browser.context, fileURL(otelOnly));
  try {
    const seen = await page.evaluate(() => ({
      available: traceExplorer.describe().available,
      basis: traceExplorer.describe().meta.time_basis,
      empty: !document.querySelector("#emptyTimeline").hidden,
      lanes: document.querySelectorAll("#clientTracks .lane").length,
      serverLanes: [...document.querySelectorAll("#serverActivity .server-activity-row")].map((r) => r.dataset.activityLane),
      serverBars: document.querySelectorAll("#serverActivity [data-span]").length,
      tabs: [...document.querySelectorAll("#inspectorTabs .tab")].map((t) => t.dataset.tab),
      title: document.querySelector("#inspectorTitle").textContent,
      requests: traceExplorer.queryRequests({}).total,
    }));
    assert.equal(seen.available.requests, false);
    assert.equal(seen.available.server_activity, true);
    assert.match(seen.basis, /no client measurement window/);
    // Spans no request owns are drawn on the timeline, a lane per role and
    // host, not only counted in the overview.
    assert.equal(seen.empty, false);
    assert.equal(seen.lanes, 0);
    assert.ok(seen.serverLanes.length > 0 && seen.serverLanes.every((k) => k.includes(" · ")), JSON.stringify(seen.serverLanes));
    assert.deepEqual(seen.tabs, ["api"]);
    assert.equal(seen.title, "Captured evidence");
    assert.equal(seen.requests, 0);
    const d = cli(otelOnly, "summary").meta.duration;
    const spans = await page.evaluate((d) => traceExplorer.queryServerSpans({ from: 0, to: d, limit: 1000 }), d);
    assert.deepEqual(spans, cli(otelOnly, "server_spans", { from: 0, to: d, limit: 1000 }));
    assert.ok(spans.total > 0 && spans.items.length === spans.total);
    assert.equal(seen.serverBars, spans.total, "every span in range is drawn");
    await page.screenshot({ path: path.join(OUT, "otel-only.png"), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

// A run with thousands of traced requests keeps its server evidence in
// pre-deflated chunks, in a shard of its own stored uncompressed
// ("identity"): the page draws the timeline before loading it, then opens
// the API; from file:// and over HTTP, lifecycles from several chunks
// equal the CLI's.
test("a traced run's evidence shard loads after the first paint; lifecycles across chunks equal the CLI's", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-identity-"));
  const srvs = [];
  try {
    const run = path.join(dir, "run");
    execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "5", "-requests", "3000", "-sources", "aiperf,frontend,otel,workers"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    const report = buildFrom(run, path.join(dir, "report"));
    const manifest = JSON.parse(fs.readFileSync(path.join(report, "manifest.json"), "utf8"));
    assert.equal(manifest.entry.evidence.encoding, "identity");
    const srv = await serve(report);
    srvs.push(srv);
    for (const url of [fileURL(report), srv.url]) {
      const { page, problems } = await open(browser.context, url);
      try {
        const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, m.startTime])));
        assert.ok(marks["dsight:first-paint"] < marks["dsight:evidence"] && marks["dsight:evidence"] <= marks["dsight:ready"], JSON.stringify(marks));
        const ids = await page.evaluate(() => {
          const traced = traceExplorer.queryRequests({ limit: 1000, sort: "start" }).items.filter((r) => r.span_count > 0);
          return [traced[0].id, traced[Math.floor(traced.length / 2)].id, traced.at(-1).id];
        });
        for (const id of ids) {
          const got = await page.evaluate((id) => traceExplorer.getLifecycle(id), id);
          assert.equal(got.available, true, id);
          assert.deepEqual(got, cli(report, "lifecycle", { request: id }));
        }
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    }
  } finally {
    for (const s of srvs) await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
