// The real report in Debian's chromium, opened from file:// and from a
// loopback HTTP server, driven through window.traceExplorer as a user would
// in devtools. Answers must equal the CLI's, the page must draw the timeline,
// input strings must stay text, and nothing may leave the machine.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { buildReport, cli, OUT } from "./fixture.mjs";

let fx;
let browser;
let server;

before(async () => {
  fx = buildReport({ seed: 7, hostile: true });
  browser = await launch();
  server = await serve(fx.report);
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

for (const mode of ["file", "http"]) {
  const url = () => (mode === "file" ? fileURL(fx.report) : server.url);

  test(`${mode}: API answers equal the CLI's`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const api = await page.evaluate(() => ({ version: traceExplorer.version, ready: traceExplorer.ready, frozen: Object.isFrozen(traceExplorer) }));
      assert.deepEqual(api, { version: "3.1", ready: true, frozen: true });

      const summary = cli(fx.report, "summary");
      const described = await page.evaluate(() => traceExplorer.describe());
      assert.equal(described.schema, summary.schema);
      assert.deepEqual(described.meta, summary.meta);
      assert.deepEqual(described.audit, summary.audit);
      assert.deepEqual(described.available, summary.capabilities);
      for (const m of ["getState", "setState", "selectRange", "selectRequest", "queryRequests", "listSessions", "getRequest", "getSource"]) assert.ok(described.capabilities.includes(m), m);

      const d = summary.meta.duration;
      for (const [from, to, limit] of [[1, 5, 20], [0, d, 1000], [d / 3, d / 2, 7]]) {
        const fromPage = await page.evaluate(([from, to, limit]) => traceExplorer.queryRequests({ from, to, limit }), [from, to, limit]);
        assert.deepEqual(fromPage, cli(fx.report, "requests", { from, to, limit }), `requests ${from}–${to}`);
      }
      const slow = await page.evaluate(() => traceExplorer.queryRequests({ minTTFT: 2000, limit: 5, offset: 1 }));
      assert.deepEqual(slow, cli(fx.report, "requests", { "min-ttft-ms": 2000, limit: 5, offset: 1 }));
      assert.ok(slow.items.every((r) => r.ttft_ms >= 2000));

      const id = slow.items[0]?.id ?? (await page.evaluate(() => traceExplorer.queryRequests({ limit: 1 }).items[0].id));
      assert.deepEqual(await page.evaluate((id) => traceExplorer.getRequest(id), id), cli(fx.report, "request", { request: id }));

      await page.evaluate((d) => traceExplorer.selectRange(0, d), d);
      const sessions = await page.evaluate(() => traceExplorer.listSessions({ limit: 5 }));
      const cliSessions = cli(fx.report, "sessions", { sort: "ttft", limit: 5 });
      assert.equal(sessions.total, cliSessions.total);
      assert.deepEqual(sessions.items, cliSessions.items);
      // A negative page is refused by every list method alike, never answered with nothing.
      const refused = await page.evaluate(() => ["listSessions", "listMetricSeries", "queryRequests"].map((m) => {
        try {
          return `${m} answered ${JSON.stringify(traceExplorer[m]({ limit: -1 }))}`;
        } catch (e) {
          return `${m}: ${e.message}`;
        }
      }));
      for (const msg of refused) assert.match(msg, /: limit must be an integer from 0 to 1000; got -1$/);

      assert.deepEqual(await page.evaluate(() => traceExplorer.getSource(0)), cli(fx.report, "source", { id: 0 }));
      assert.equal(await page.evaluate(() => traceExplorer.getSource(99)), null);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: the page draws the timeline and follows the API`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const drawn = await page.evaluate(() => ({
        lanes: document.querySelectorAll("#clientTracks .lane").length,
        bars: document.querySelectorAll("#clientTracks .req").length,
        sessions: document.querySelectorAll("#clientTracks .session-row").length,
        selected: traceExplorer.getState().request,
        inspector: document.querySelector("#inspectorBody .request-id")?.textContent,
        overviewBars: document.querySelectorAll("#overview .ov-bar").length,
      }));
      assert.ok(drawn.lanes >= 7 && drawn.bars > 0 && drawn.sessions === 7 && drawn.overviewBars > 10, JSON.stringify(drawn));
      assert.equal(drawn.inspector, drawn.selected, "the default request is selected and shown");

      // One state event per committed range change.
      const events = await page.evaluate(() => {
        let n = 0;
        addEventListener("trace-explorer:state", () => n++);
        traceExplorer.selectRange(10, 20);
        return n;
      });
      assert.equal(events, 1);

      // From/To inputs, Apply range, Full run and Previous time range.
      await page.fill("#rangeFrom", "30");
      await page.fill("#rangeTo", "90");
      await page.click("#applyRange");
      let st = await page.evaluate(() => traceExplorer.getState());
      assert.deepEqual([st.from, st.to], [30, 90]);
      await page.click("#fullRun");
      await page.click("#rangeBack");
      st = await page.evaluate(() => traceExplorer.getState());
      assert.deepEqual([st.from, st.to], [30, 90]);

      // Clicking a bar selects that request and the inspector shows it.
      const target = await page.evaluate(() => {
        traceExplorer.selectRange(0, traceExplorer.describe().meta.duration);
        const r = traceExplorer.queryRequests({ limit: 1 }).items[0];
        traceExplorer.selectRequest(r.id, { fit: true });
        return r.id;
      });
      await page.locator(`#clientTracks .req[data-request="${target}"]`).first().click();
      assert.equal(await page.evaluate(() => traceExplorer.getState().request), target);

      // Fit Session frames the whole session; ↶ goes back.
      const before = await page.evaluate(() => traceExplorer.getState());
      await page.click("#fitSession");
      const fitted = await page.evaluate(() => traceExplorer.getState());
      const req = await page.evaluate((id) => traceExplorer.getRequest(id), target);
      const sess = cli(fx.report, "sessions", { session: req.session, limit: 1 }).items[0];
      assert.ok(fitted.from <= sess.start && fitted.to >= sess.end, "Fit Session covers the session");
      await page.click("#rangeBack");
      const back = await page.evaluate(() => traceExplorer.getState());
      assert.deepEqual([back.from, back.to], [before.from, before.to]);

      // Search filters sessions; a drag across the lanes selects a range.
      await page.fill("#requestSearch", req.session);
      await page.waitForFunction((s) => traceExplorer.getState().search === s, req.session);
      assert.equal(await page.locator("#clientTracks .session-row").count(), 1);
      const lane = await page.locator("#clientTracks .lane").first().boundingBox();
      await page.mouse.move(lane.x + lane.width * 0.2, lane.y + 5);
      await page.mouse.down();
      await page.mouse.move(lane.x + lane.width * 0.5, lane.y + 5, { steps: 5 });
      await page.mouse.up();
      const dragged = await page.evaluate(() => traceExplorer.getState());
      assert.ok(dragged.from > back.from && dragged.to < back.to, `drag selected ${dragged.from}–${dragged.to}`);

      // Zooms keep or relabel session rows rather than rebuild them: each
      // row must still name, describe and toggle the session it shows.
      await page.fill("#requestSearch", "");
      await page.waitForFunction(() => traceExplorer.getState().search === "");
      const dur = await page.evaluate(() => traceExplorer.describe().meta.duration);
      const seen = new Set();
      for (const [a, b] of [[0, dur / 3], [dur / 3, (2 * dur) / 3], [dur / 4, dur / 2], [0.6 * dur, dur], [0, dur]]) {
        const rows = await page.evaluate(([a, b]) => {
          traceExplorer.selectRange(a, b);
          return [...document.querySelectorAll("#clientTracks .session-row")].map((r) => ({
            id: r.dataset.session,
            name: r.querySelector(".name").textContent,
            nameTitle: r.querySelector(".name").title,
            toggle: r.querySelector(".toggle").getAttribute("aria-label"),
            bar: r.querySelector(".session-bar").title,
          }));
        }, [a, b]);
        assert.ok(rows.length > 0, `no session rows for ${a}–${b}`);
        for (const r of rows) {
          seen.add(r.id);
          assert.deepEqual([r.name, r.nameTitle, r.toggle], [r.id, r.id, `${r.toggle.startsWith("Collapse") ? "Collapse" : "Expand"} session ${r.id}`]);
          assert.ok(r.bar.startsWith(`Session ${r.id}: `), r.bar);
        }
      }
      assert.ok(seen.size > 7, `the zooms showed only ${seen.size} sessions`);
      const firstRow = page.locator("#clientTracks .session-row").first();
      const shownId = await firstRow.getAttribute("data-session");
      // The page opens on the slowest request by TTFT, whose session (open)
      // heads the TTFT order: the toggle flips the session its row shows.
      const wasOpen = (await page.evaluate(() => traceExplorer.getState().expandedSessions)).includes(shownId);
      await firstRow.locator(".toggle").click();
      assert.equal((await page.evaluate(() => traceExplorer.getState().expandedSessions)).includes(shownId), !wasOpen, "the toggle expands the session its row shows");

      await page.screenshot({ path: path.join(OUT, `timeline-${mode}.png`), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test("input strings are text, never markup", async () => {
  const { page, problems } = await open(browser.context, fileURL(fx.report));
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    d.dismiss();
  });
  try {
    const hostile = await page.evaluate(() => traceExplorer.queryRequests({ search: "onerror", limit: 10 }).items.map((r) => r.id));
    assert.ok(hostile.length > 0, "the generated run plants a hostile id");
    const shown = await page.evaluate((id) => {
      traceExplorer.selectRequest(id, { fit: true });
      return {
        inspector: document.querySelector("#inspectorBody .request-id").textContent,
        imgs: document.querySelectorAll("img").length,
        rowNames: [...document.querySelectorAll("#clientTracks .name")].map((n) => n.textContent),
      };
    }, hostile[0]);
    assert.equal(shown.inspector, hostile[0]);
    assert.equal(shown.imgs, 0);
    assert.ok(shown.rowNames.some((n) => n.includes("<img")), "the id appears literally in the tree");
    await page.waitForTimeout(200);
    assert.equal(dialogs, 0);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("invalid calls throw; state round-trips; unknown keys are ignored", async () => {
  const { page, problems } = await open(browser.context, fileURL(fx.report));
  try {
    const errors = await page.evaluate(() => {
      const msg = (f) => {
        try {
          f();
          return null;
        } catch (e) {
          return e.message;
        }
      };
      const d = traceExplorer.describe().meta.duration;
      return [
        msg(() => traceExplorer.selectRange(5, 5)),
        msg(() => traceExplorer.selectRange(-1, 2)),
        msg(() => traceExplorer.selectRange(0, d + 1)),
        msg(() => traceExplorer.selectRange(NaN, 2)),
        msg(() => traceExplorer.getRequest("no-such-request")),
        msg(() => traceExplorer.selectRequest("no-such-request")),
        msg(() => traceExplorer.setState(null)),
        msg(() => traceExplorer.queryRequests({ from: 3, to: 1 })),
      ];
    });
    for (const e of errors.slice(0, 4)) assert.match(e, /Range must satisfy/);
    assert.match(errors[4], /Unknown request/);
    assert.match(errors[5], /Unknown request/);
    assert.match(errors[6], /state object/);
    assert.match(errors[7], /Range must satisfy/);

    const roundTrip = await page.evaluate(() => {
      traceExplorer.selectRange(12.5, 80.25);
      const s = traceExplorer.getState();
      s.expandedSessions.push("not-a-session-but-kept-as-data");
      const restored = traceExplorer.setState({ ...s, lifecycleView: "old", expandedWorkers: ["x"] });
      const again = traceExplorer.getState();
      again.search = "mutating a snapshot must not change the page";
      return { s, restored, after: traceExplorer.getState() };
    });
    assert.deepEqual(roundTrip.restored, roundTrip.s);
    assert.deepEqual(roundTrip.after, roundTrip.s);
    // lifecycleView is state (page-compat.md); an unknown value is not taken.
    assert.equal(roundTrip.after.lifecycleView, "milestones");

    // A request the API hands out is the caller's: changing it changes
    // neither a later answer nor what the page keeps.
    const owned = await page.evaluate(() => {
      const id = traceExplorer.queryRequests({ limit: 1 }).items[0].id;
      const first = traceExplorer.getRequest(id);
      const kept = JSON.stringify(first);
      first.id = "changed";
      first.spans.length = 0;
      first.lifecycle = null;
      const picked = traceExplorer.selectRequest(id);
      const pickedText = JSON.stringify(picked);
      picked.spans.push("changed too");
      return { kept, pickedText, again: JSON.stringify(traceExplorer.getRequest(id)), selected: JSON.stringify(traceExplorer.selectRequest(id)) };
    });
    assert.equal(owned.pickedText, owned.kept, "selectRequest answers as getRequest does");
    assert.equal(owned.again, owned.kept, "getRequest after the caller changed an answer");
    assert.equal(owned.selected, owned.kept, "selectRequest after the caller changed an answer");

    // setState with an unknown request throws, like selectRequest.
    const unknown = await page.evaluate(() => {
      try {
        traceExplorer.setState({ request: "no-such-request" });
        return null;
      } catch (e) {
        return e.message;
      }
    });
    assert.match(unknown, /Unknown request/);

    const exported = await page.evaluate(async () => {
      const p = traceExplorer.exportSelection();
      traceExplorer.selectRange(1, 2); // after the call: must not leak into the export
      return p;
    });
    assert.deepEqual([exported.view.from, exported.view.to], [12.5, 80.25]);
    assert.equal(exported.schema, "srtctl-trace/1");
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a saved view link restores the view", async () => {
  const { page } = await open(browser.context, fileURL(fx.report));
  const saved = await page.evaluate(() => {
    const id = traceExplorer.queryRequests({ offset: 5, limit: 1 }).items[0].id;
    traceExplorer.selectRequest(id, { fit: true });
    return traceExplorer.getState();
  });
  await page.close();
  const link = `${fileURL(fx.report)}#view=${encodeURIComponent(JSON.stringify(saved))}`;
  const { page: again, problems } = await open(browser.context, link);
  try {
    assert.deepEqual(await again.evaluate(() => traceExplorer.getState()), saved);
    assert.deepEqual(problems, []);
  } finally {
    await again.close();
  }
});

test("narrow screens do not scroll sideways", async () => {
  const { page, problems } = await open(browser.context, fileURL(fx.report), { width: 390, height: 844 });
  try {
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(widths.scroll <= widths.client, JSON.stringify(widths));
    await page.screenshot({ path: path.join(OUT, "narrow-390.png"), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
