// The page hooks and answer shapes that automation written for the
// reference explorer relies on (/work/shared/spec/page-compat.md), in the
// real page from file:// and from a loopback HTTP server: timeline and
// lifecycle hooks, lifecycleView, metric chart hooks, the hover title of a
// recorded sample, the undebounced metric search, re-mounts on setState,
// focus after a card action, drags released anywhere, and a search typed
// while the page rehearses.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { buildReport, OUT } from "./fixture.mjs";

let fx;
let browser;
let server;

// A generated run with OTel lifecycles, Tachometer metrics and TokenSpeed
// logs (log metrics with limit references, hence capacity summaries).
before(async () => {
  fx = buildReport({ seed: 3, hostile: true, sources: "aiperf,frontend,otel,workers,tokenspeed,tachometer", flags: ["--iteration-timezone", "UTC"] });
  browser = await launch();
  server = await serve(fx.report);
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

// tracedRequest is a request with a lifecycle, and its lifecycle.
function tracedRequest() {
  const page = traceExplorer.queryRequests({ limit: 200 });
  for (const r of page.items) {
    const lc = traceExplorer.getLifecycle(r.id);
    if (lc.available && lc.stages.length > 1) return { id: r.id, lc };
  }
  return null;
}

for (const mode of ["file", "http"]) {
  const url = () => (mode === "file" ? fileURL(fx.report) : server.url);

  test(`${mode}: timeline and lifecycle hooks`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      assert.equal(await page.evaluate(() => traceExplorer.ready), true);
      assert.ok((await page.locator(".track").count()) > 0, "a .track is drawn once ready");
      const coverage = await page.locator("#coverageNotice").textContent();
      assert.match(coverage, /^Imported: \S/);

      const { id, lc } = await page.evaluate(tracedRequest);
      assert.ok(id, "the run has a traced request");
      await page.evaluate((id) => traceExplorer.selectRequest(id, { expand: true }), id);
      const seen = await page.evaluate((id) => {
        const rows = [...document.querySelectorAll("#clientTracks .session-row, #clientTracks .agent-row, #clientTracks .request-row")];
        const bar = document.querySelector(`#clientTracks .request-row [data-request="${CSS.escape(id)}"]`);
        return {
          rows: rows.length,
          tracks: rows.filter((r) => r.classList.contains("track")).length,
          sessions: document.querySelectorAll("#clientTracks .session-row").length,
          sessionBars: document.querySelectorAll("#clientTracks .session-row .bar.session").length,
          selectedRow: bar?.closest(".track")?.classList.contains("selected"),
          selectedRows: document.querySelectorAll("#clientTracks .track.selected").length,
          toggle: document.querySelectorAll(`[data-toggle=request][data-id="${CSS.escape(id)}"]`).length,
          lanes: document.querySelectorAll("#clientTracks .lane").length,
          chains: [...document.querySelectorAll(`.lifecycle-chain[data-owner-request="${CSS.escape(id)}"]`)].map((row) => ({
            row: row.dataset.stageRow,
            label: row.querySelector(".stage-row-label")?.textContent,
            blocks: [...row.querySelectorAll("[data-stage-span]")].map((b) => [b.dataset.stageSpan, b.dataset.currentStage, b.dataset.span]),
          })),
        };
      }, id);
      assert.ok(seen.rows > 0 && seen.tracks === seen.rows, `every timeline row is a .track (${seen.tracks} of ${seen.rows})`);
      assert.ok(seen.sessions > 0 && seen.sessionBars === seen.sessions, "each session bar is .bar.session");
      assert.equal(seen.selectedRow, true, "the selected request's row is .track.selected");
      assert.equal(seen.selectedRows, 1);
      assert.equal(seen.toggle, 1, "the request's expand toggle");
      assert.ok(seen.lanes > 0);
      assert.equal(seen.chains.length, lc.stages.length, "one .lifecycle-chain per stage");
      seen.chains.forEach((c, i) => {
        assert.equal(c.row, String(i));
        assert.ok(c.label.includes(lc.stages[i].label) && /\d ms$/.test(c.label), `full label with its duration: ${c.label}`);
        assert.deepEqual(
          c.blocks,
          lc.stages.slice(0, i + 1).map((s, j) => [s.id, String(j === i), s.id]),
        );
      });

      // The activities view: one row per raw activity, no chains.
      await page.locator("[data-lifecycle-view=activities]").first().click();
      const acts = await page.evaluate(() => ({
        view: traceExplorer.getState().lifecycleView,
        chains: document.querySelectorAll(".lifecycle-chain").length,
        rows: [...document.querySelectorAll("[data-activity-row]")].map((r) => r.dataset.activityRow),
        spans: [...document.querySelectorAll("[data-activity-row] [data-span]")].map((b) => b.dataset.span),
      }));
      assert.equal(acts.view, "activities");
      assert.equal(acts.chains, 0);
      assert.deepEqual(acts.rows, lc.activities.map((a) => a.id));
      assert.deepEqual(acts.spans, lc.activities.map((a) => a.id));
      const back = await page.evaluate(() => {
        traceExplorer.setState({ lifecycleView: "milestones" });
        return { view: traceExplorer.getState().lifecycleView, chains: document.querySelectorAll(".lifecycle-chain").length };
      });
      assert.deepEqual(back, { view: "milestones", chains: lc.stages.length });

      const thrown = await page.evaluate(() => {
        try {
          traceExplorer.setState({ request: "no-such-request" });
          return null;
        } catch (e) {
          return e.message;
        }
      });
      assert.match(thrown, /Unknown request/);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: metric hooks, hover titles, search, re-mounts and focus`, async () => {
    const init = () => {
      window.__mounts = 0;
      let charts;
      Object.defineProperty(window, "DSightMetricCharts", {
        configurable: true,
        get: () => charts,
        set: (v) => {
          const mount = v.mount;
          charts = { ...v, mount: (...a) => (window.__mounts++, mount(...a)) };
        },
      });
    };
    const { page, problems } = await open(browser.context, url(), { init });
    try {
      const name = "log_tokenspeed_active_decode_requests";
      const d = await page.evaluate(() => traceExplorer.describe().meta.duration);
      await page.evaluate((name) => {
        traceExplorer.setState({ metric: name, pinnedMetrics: [name] });
        return traceExplorer.whenMetricsReady();
      }, name);
      const card = page.locator(`.metric-card[data-metric-name="${name}"]`);
      const ids = await page.evaluate((name) => traceExplorer.listMetricSeries({ name }).map((s) => s.id), name);
      assert.ok(ids.length > 0, "the family has series");
      const drawn = JSON.parse(await card.locator(".ds-metric-chart").getAttribute("data-drawn-ids"));
      assert.deepEqual([...drawn].sort((a, b) => a - b), [...ids].sort((a, b) => a - b), "data-drawn-ids lists every series held");
      const rows = await card.locator(".ds-metric-legend-row").count();
      assert.ok((await card.locator(".ds-metric-capacity").count()) > 0, "capacity summaries carry .ds-metric-capacity");
      assert.equal(await card.locator(".ds-metric-label-details").count(), rows);

      // Hover: each value's title names its nearest recorded sample at or
      // before the cursor, at that sample's own time.
      const over = card.locator(".u-over");
      await over.scrollIntoViewIfNeeded();
      const box = await over.boundingBox();
      const st = await page.evaluate(() => traceExplorer.getState());
      const frac = 0.537;
      await page.mouse.move(box.x + box.width * frac, box.y + box.height / 2);
      const cursorT = st.from + frac * (st.to - st.from);
      const titled = await card.locator(".ds-metric-legend-row").evaluateAll((rs) => rs.filter((r) => r.querySelector(".ds-metric-legend-toggle").getAttribute("aria-pressed") === "true").map((r) => ({ id: Number(r.dataset.seriesId), title: r.querySelector(".ds-metric-value").title })));
      const px = (st.to - st.from) / box.width;
      let checked = 0;
      for (const { id, title } of titled) {
        const m = /^Recorded sample at (\S+) elapsed seconds: (.+)$/.exec(title);
        if (!m) continue;
        const T = Number(m[1]);
        assert.ok(T <= cursorT + px, `series ${id}: sample at ${T} after the cursor at ${cursorT}`);
        // T is a recorded row of that series, with its value.
        const [at] = await page.evaluate((a) => traceExplorer.queryMetrics(a), { name, worker: undefined, from: Math.max(0, T - 1e-7), to: T + 1e-7, points: true }).then((xs) => xs.filter((s) => s.id === id));
        assert.ok(at.points.some((p) => Math.abs(p[0] - T) < 1e-6 && m[2].startsWith(String(p[1]))), `series ${id}: ${title} is not a recorded row (${JSON.stringify(at.points)})`);
        assert.ok(Math.abs(T - cursorT) > 1e-9, "the sample's time, not the cursor's");
        checked++;
      }
      assert.ok(checked > 0, "some series had a sample before the cursor");
      await page.mouse.move(0, 0);

      // The metric search filters in the input event's own task.
      const filtered = await page.evaluate(() => {
        const box = document.getElementById("metricSearch");
        box.value = "log_tokenspeed_kv_pool_pages";
        box.dispatchEvent(new Event("input", { bubbles: true }));
        return [...document.querySelectorAll("#workerMetric option")].map((o) => o.value);
      });
      assert.ok(filtered.includes("log_tokenspeed_kv_pool_pages") && filtered.every((n) => n === "log_tokenspeed_kv_pool_pages" || n === name), filtered.join(","));

      // Every setState re-mounts each visible chart through the global mounter.
      const before = await page.evaluate(() => window.__mounts);
      await page.evaluate(() => {
        traceExplorer.setState({});
        return traceExplorer.whenMetricsReady();
      });
      const charts = await page.locator(".ds-metric-chart").count();
      assert.ok((await page.evaluate(() => window.__mounts)) - before >= charts, "setState mounted the charts again");

      // Enter on Unpin keeps the focus on a control, never <body>.
      await page.evaluate((d) => {
        traceExplorer.setState({ pinnedMetrics: ["log_tokenspeed_decode_request_limit", "log_tokenspeed_active_decode_requests"], from: 0, to: d });
        return traceExplorer.whenMetricsReady();
      }, d);
      await page.locator(`.metric-card[data-metric-name="log_tokenspeed_decode_request_limit"] [data-action=move-metric-down]`).focus();
      await page.keyboard.press("Enter");
      let focus = await page.evaluate(() => ({ tag: document.activeElement.tagName, card: document.activeElement.closest(".metric-card")?.dataset.metricName, id: document.activeElement.id }));
      assert.equal(focus.card, "log_tokenspeed_decode_request_limit", JSON.stringify(focus));
      await page.locator(`.metric-card[data-metric-name="log_tokenspeed_decode_request_limit"] [data-action=unpin-metric]`).focus();
      await page.keyboard.press("Enter");
      focus = await page.evaluate(() => ({ tag: document.activeElement.tagName, card: document.activeElement.closest(".metric-card")?.dataset.metricName, id: document.activeElement.id }));
      assert.ok(focus.tag !== "BODY" && (focus.card === "log_tokenspeed_decode_request_limit" || focus.id === "pinMetric"), JSON.stringify(focus));
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: a drag released over the inspector commits; selectRange during a drag wins`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const d = await page.evaluate(() => traceExplorer.describe().meta.duration);
      const lane = await page.locator("#clientTracks .lane").first().boundingBox();
      const inspector = await page.locator("#inspectorBody").boundingBox();
      const x0 = lane.x + lane.width * 0.4;
      const y = lane.y + lane.height / 2;
      await page.mouse.move(x0, y);
      await page.mouse.down();
      await page.mouse.move(x0 + 40, y);
      await page.mouse.move(inspector.x + inspector.width / 2, inspector.y + 20);
      await page.mouse.up();
      const st = await page.evaluate(() => traceExplorer.getState());
      assert.ok(Math.abs(st.from - 0.4 * d) < d / lane.width + 1e-9, `from ${st.from}, want ${0.4 * d}`);
      assert.ok(Math.abs(st.to - d) < 1e-9, `to ${st.to}: clamped to the lane's end ${d}`);

      await page.evaluate(() => traceExplorer.selectRange(0, traceExplorer.describe().meta.duration));
      await page.mouse.move(x0, y);
      await page.mouse.down();
      await page.mouse.move(x0 + 60, y);
      await page.evaluate(() => traceExplorer.selectRange(1, 2));
      await page.mouse.up();
      const kept = await page.evaluate(() => traceExplorer.getState());
      assert.deepEqual([kept.from, kept.to], [1, 2], "the API range survives the release");
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: a search typed while the page rehearses keeps every keystroke`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const box = page.locator("#requestSearch");
      await box.click();
      await page.keyboard.type("sess", { delay: 45 });
      await page.waitForTimeout(250);
      await page.keyboard.type("ion", { delay: 45 });
      await page.waitForFunction(() => traceExplorer.getState().search === "session", null, { timeout: 5000 });
      assert.equal(await box.inputValue(), "session");
      if (mode === "http") await page.screenshot({ path: path.join(OUT, "compat-http.png"), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
