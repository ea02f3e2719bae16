// A request's expand and fit drawn once. selectRequest(id, {expand, fit})
// on a request elsewhere in the run shows another window and other
// sessions: the window overview keeps its path and sets its bars, and
// the rows of the lifecycle expanded before are relabelled for the new
// request's rather than built again. What the page then shows is what a
// fresh load of the same view draws. Before ready the page rehearses the
// expand and fit of the request it opens on, and leaves the lanes as it
// opened them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { open, fileURL, assertDrawnAsFresh, canon } from "./harness.mjs";
import { generatedReport } from "./suite.mjs";

const at = generatedReport("fitrender", ["-seed", "11", "-requests", "1500", "-sources", "aiperf,frontend,otel,workers"]);

test("a fit to a request elsewhere keeps the overview's path and relabels the lifecycle rows", async () => {
  const { page, problems } = await open(at.browser.context, fileURL(at.report));
  try {
    // Two traced requests with lifecycles far apart in the run.
    const pick = await page.evaluate(() => {
      const x = traceExplorer;
      const d = x.describe().meta.duration;
      const traced = (from, to) => x.queryRequests({ from, to, limit: 500 }).items.find((r) => r.span_count > 0 && x.getRequest(r.id).lifecycle.available)?.id;
      return { first: traced(0, d * 0.3), second: traced(d * 0.6, d) };
    });
    assert.ok(pick.first && pick.second, `the run has traced requests early and late (${JSON.stringify(pick)})`);
    await page.evaluate((id) => traceExplorer.selectRequest(id, { expand: true, fit: true }), pick.first);
    const before = await page.evaluate((id) => {
      for (const el of document.querySelectorAll("#clientTracks *, #windowOverview *, #overviewConnector *")) el.__drawn = true;
      return {
        bars: document.querySelector("#windowOverview path.ov-bar")?.getAttribute("d"),
        rows: document.querySelectorAll(`[data-owner-request="${CSS.escape(id)}"]`).length,
        heads: document.querySelectorAll("#clientTracks .breakdown-head").length,
      };
    }, pick.first);
    assert.ok(before.rows > 2, `the first request shows its lifecycle rows (${before.rows})`);

    await page.evaluate((id) => traceExplorer.selectRequest(id, { expand: true, fit: true }), pick.second);
    const seen = await page.evaluate(({ first, second }) => {
      const fresh = (sel) => [...document.querySelectorAll(sel)].filter((el) => !el.__drawn).length;
      return {
        bars: document.querySelector("#windowOverview path.ov-bar")?.getAttribute("d"),
        overviewBuilt: fresh("#windowOverview *"),
        connectorsBuilt: fresh("#overviewConnector *"),
        rows: document.querySelectorAll(`[data-owner-request="${CSS.escape(second)}"]`).length,
        rowsBuilt: fresh(`[data-owner-request="${CSS.escape(second)}"]`),
        firstRows: document.querySelectorAll(`[data-owner-request="${CSS.escape(first)}"]`).length,
        headsBuilt: fresh("#clientTracks .breakdown-head"),
      };
    }, pick);
    assert.equal(seen.firstRows, 0, "the first request's session is no longer on the page");
    assert.ok(seen.rows > 2, `the second request shows its lifecycle rows (${seen.rows})`);
    assert.ok(before.bars && seen.bars && seen.bars !== before.bars, "the overview draws the new window's bars");
    assert.equal(seen.overviewBuilt, 0, "the overview's row, label and path are kept");
    assert.equal(seen.connectorsBuilt, 0, "the connectors are moved, not built");
    assert.equal(seen.rowsBuilt, Math.max(0, seen.rows - before.rows), "only the lifecycle rows beyond those drawn before are built");
    assert.equal(seen.headsBuilt, 0, "the lifecycle's head row is relabelled");

    // The relabelled rows act on their new request and spans.
    const span = await page.evaluate((id) => {
      const b = document.querySelector(`[data-owner-request="${CSS.escape(id)}"] [data-span]`);
      b.click();
      return [b.dataset.span, traceExplorer.getState().span];
    }, pick.second);
    assert.equal(span[1], span[0], "a relabelled block selects its own span");

    // Drawn step by step, the page shows what a fresh load of its view shows.
    await assertDrawnAsFresh(page, at.browser.context, at.report, ["#clientTracks", "#windowOverview", "#overviewConnector"]);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("before ready the page rehearses its request's expand and fit, and leaves the lanes as it opened them", async () => {
  const { page, problems } = await open(at.browser.context, fileURL(at.report));
  try {
    const lanes = {};
    for (const sel of ["#clientTracks", "#axis", "#requestCount", "#pager"]) lanes[sel] = await page.evaluate(canon, sel);
    const opened = await page.evaluate(() => {
      const m = performance.getEntriesByName("dsight:expand-rehearsed")[0];
      const ready = performance.getEntriesByName("dsight:ready")[0];
      return {
        rehearsed: m ? m.startTime + m.duration <= ready.startTime : null,
        state: traceExplorer.getState(),
        duration: traceExplorer.describe().meta.duration,
        lifecycleRows: document.querySelectorAll("[data-owner-request]").length,
        selectedBar: !!document.querySelector(`#clientTracks [data-request="${CSS.escape(traceExplorer.getState().request)}"]`),
      };
    });
    assert.equal(opened.rehearsed, true, "the expand was rehearsed before ready");
    assert.ok(opened.state.request !== null, "the page opens on a request");
    assert.deepEqual(opened.state.expandedRequests, [], "no request is expanded on open");
    assert.deepEqual([opened.state.from, opened.state.to], [0, opened.duration], "the page opens on the whole run");
    assert.equal(opened.lifecycleRows, 0, "no lifecycle row is left on the page");
    assert.ok(opened.selectedBar, "the lanes show the page of sessions holding the opening request");
    // A render of the same state draws the lanes as they are.
    await page.evaluate(() => traceExplorer.setState(traceExplorer.getState()));
    for (const [sel, was] of Object.entries(lanes)) assert.equal(await page.evaluate(canon, sel), was, `${sel} as a render of the opening state draws it`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
