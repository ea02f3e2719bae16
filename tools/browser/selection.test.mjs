// A selection redraws only what it changes. Selecting another request in
// the same range keeps the slowest-request rows' bars, the window
// overview's histogram, the inspector's request box and an expanded
// request's lifecycle rows: the selected class and the inspector's text
// move, nothing is built again. What the page then shows is what a fresh
// load of the same view draws.

import { test } from "node:test";
import assert from "node:assert/strict";
import { open, fileURL, assertDrawnAsFresh } from "./harness.mjs";
import { generatedReport } from "./suite.mjs";

const at = generatedReport("selection", ["-seed", "9", "-requests", "1500", "-sources", "aiperf,frontend,otel,workers"]);

// drawn waits until the slowest-request rows are drawn for the view's range
// (they wait for a range to settle before asking).
async function drawn(page) {
  await page.waitForFunction(() => {
    const s = traceExplorer.getState();
    return document.querySelector("#slowRows")?.dataset.range === `${s.from} ${s.to}`;
  });
}

const REGIONS = ["#clientTracks", "#slowRows", "#inspectorBody", "#windowOverview"];

test("selecting a request in the same range keeps what did not change", async () => {
  const { page, problems } = await open(at.browser.context, fileURL(at.report));
  try {
    await drawn(page);
    // A traced request in a session of several requests, one of its
    // neighbours, and a request of the slowest rows other than both.
    const pick = await page.evaluate(() => {
      const x = traceExplorer;
      for (let offset = 0; ; offset += 1000) {
        const page = x.queryRequests({ offset, limit: 1000 });
        if (!page.items.length) return null;
        for (const r of page.items) {
          if (!r.span_count) continue;
          const mates = x.queryRequests({ session: r.session, limit: 10 }).items.filter((m) => m.id !== r.id);
          if (mates.length) return { traced: r.id, mate: mates[0].id };
        }
      }
    });
    assert.ok(pick, "the run has a traced request with a session neighbour");
    await page.evaluate((id) => traceExplorer.selectRequest(id, { expand: true }), pick.traced);
    await drawn(page);
    const marked = await page.evaluate(({ traced }) => {
      const slow = [...document.querySelectorAll("#slowRows button.req")];
      const other = slow.map((b) => b.dataset.request).find((id) => id !== traced);
      // Every element drawn now carries a mark a rebuilt one would lack.
      for (const sel of ["#slowRows", "#windowOverview", "#inspectorBody", `[data-owner-request="${CSS.escape(traced)}"]`]) {
        for (const root of document.querySelectorAll(sel)) for (const el of [root, ...root.querySelectorAll("*")]) el.__drawn = true;
      }
      return { other, slow: slow.length, rows: document.querySelectorAll(`[data-owner-request="${CSS.escape(traced)}"]`).length, overview: (document.querySelector("#windowOverview path.ov-bar")?.getAttribute("d") ?? "").split("M").length - 1, bars: document.querySelector("#windowOverview path.ov-bar")?.getAttribute("d") };
    }, pick);
    assert.ok(marked.slow > 20, `the slowest rows hold bars (${marked.slow})`);
    assert.ok(marked.rows > 2, `the expanded request shows its lifecycle rows (${marked.rows})`);
    assert.ok(marked.overview > 0, "the window overview has bars");

    // The neighbour shares the traced request's page of sessions, so its
    // lifecycle rows stay; the slow request may move to another page.
    for (const id of [pick.mate, marked.other, pick.traced]) {
      const samePage = id === pick.mate;
      const range = await page.evaluate(() => [traceExplorer.getState().from, traceExplorer.getState().to]);
      await page.evaluate((id) => traceExplorer.selectRequest(id), id);
      const seen = await page.evaluate(
        ({ id, traced }) => {
          const rebuilt = (sel) => [...document.querySelectorAll(sel)].filter((el) => !el.__drawn).length;
          return {
            range: [traceExplorer.getState().from, traceExplorer.getState().to],
            slowRebuilt: rebuilt("#slowRows button.req"),
            overviewRebuilt: rebuilt("#windowOverview, #windowOverview *"),
            overviewBars: document.querySelector("#windowOverview path.ov-bar")?.getAttribute("d"),
            lifecycleRebuilt: rebuilt(`[data-owner-request="${CSS.escape(traced)}"], [data-owner-request="${CSS.escape(traced)}"] *`),
            lifecycleRows: document.querySelectorAll(`[data-owner-request="${CSS.escape(traced)}"]`).length,
            detailKept: !!document.querySelector("#inspectorBody .request-detail")?.__drawn,
            shownId: document.querySelector("#inspectorBody .request-id")?.textContent,
            selectedSlow: [...document.querySelectorAll("#slowRows button.req.selected")].map((b) => b.dataset.request),
            slowOfId: document.querySelectorAll(`#slowRows button.req[data-request="${CSS.escape(id)}"]`).length,
            selectedRows: [...document.querySelectorAll("#clientTracks .track.selected")].map((r) => r.dataset.request),
          };
        },
        { id, traced: pick.traced },
      );
      assert.deepEqual(seen.range, range, "a selection without fit keeps the range");
      assert.equal(seen.slowRebuilt, 0, "no bar of the slowest rows is built again");
      assert.equal(seen.overviewRebuilt, 0, "the window overview is not built again");
      assert.equal(seen.overviewBars, marked.bars, "and its bars are unchanged");
      if (samePage) {
        assert.equal(seen.lifecycleRows, marked.rows, "the expanded request stays on the page");
        assert.equal(seen.lifecycleRebuilt, 0, "its lifecycle rows are not built again");
      }
      assert.ok(seen.detailKept, "the inspector's request box is kept");
      assert.equal(seen.shownId, id, "and shows the selected request");
      assert.deepEqual(seen.selectedSlow, Array(seen.slowOfId).fill(id), "only the selected request's slow bars are marked selected");
      assert.ok(seen.selectedRows.every((r) => r === id), `only the selected request's row is selected (${seen.selectedRows})`);
    }

    // The same range committed again keeps the rows and the overview too.
    await page.evaluate(() => {
      const s = traceExplorer.getState();
      traceExplorer.selectRange(s.from, s.to);
    });
    assert.deepEqual(
      await page.evaluate(() => ["#slowRows button.req", "#windowOverview rect"].map((sel) => [...document.querySelectorAll(sel)].filter((el) => !el.__drawn).length)),
      [0, 0],
    );

    // Drawn step by step, the page shows what a fresh load of its view shows.
    const here = await page.evaluate((sels) => sels.map((s) => document.querySelector(s) && s).filter(Boolean), REGIONS);
    await assertDrawnAsFresh(page, at.browser.context, at.report, here, drawn);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
