// Session metrics, range statistics, slow-request rows and Perfetto keys in
// a generated report, from file:// and from a loopback HTTP server:
// rangeStats equals `dsight query stats`, the derived charts draw with
// their "derived" labels, the percentile rows hold exactly the requests the
// CLI's stats name, and the keys move the range as keys.js specifies.

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

const close = (a, b) => Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

for (const mode of ["file", "http"]) {
  const url = () => (mode === "file" ? fileURL(fx.report) : server.url);

  test(`${mode}: rangeStats equals the CLI's stats`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const d = cli(fx.report, "summary").meta.duration;
      const from = Math.round(d * 0.2 * 1000) / 1000;
      const to = Math.round(d * 0.6 * 1000) / 1000;
      for (const flags of [{ from, to, name: "session_request_latency" }, { from, to }, { from: 0, to: d, name: "session_in_flight_requests" }]) {
        const got = await page.evaluate((o) => traceExplorer.rangeStats(o), flags);
        assert.deepEqual(got, cli(fx.report, "stats", flags), JSON.stringify(flags));
      }
      const all = await page.evaluate(({ from, to }) => traceExplorer.rangeStats({ from, to }), { from, to });
      assert.ok(all.series.some((s) => s.derived) && all.series.some((s) => !s.derived), "captured and derived series both covered");
      assert.ok(all.requests.count > 0 && all.requests.latency_s.samples === all.requests.completed);
      // The panel under the sessions shows the selected range's numbers.
      await page.evaluate(({ from, to }) => traceExplorer.selectRange(from, to), { from, to });
      await page.waitForFunction((n) => document.querySelector("#rangeStats .stats-requests")?.dataset.count === String(n), all.requests.count);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: derived charts render with their derived labels`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const families = await page.evaluate(() => traceExplorer.listMetricFamilies());
      const session = families.filter((f) => f.component === "Session");
      assert.ok(session.length >= 8, "session families listed");
      for (const f of session) assert.equal(f.derived, true, f.name);
      for (const f of families.filter((f) => f.component !== "Session")) assert.equal(f.derived, undefined, f.name);
      for (const name of ["session_in_flight_requests", "session_request_latency"]) {
        await page.evaluate((metric) => traceExplorer.setState({ metric }), name);
        await page.evaluate(() => traceExplorer.whenMetricsReady());
        const card = page.locator(`.metric-card[data-metric-name="${name}"]`);
        assert.equal(await card.locator(".metric-derived").textContent(), "derived");
        assert.match(await card.locator(".metric-derived").getAttribute("title"), /^Derived at build time, not recorded: /);
        assert.ok((await card.locator("canvas").count()) > 0, "the chart drew");
        const option = await page.locator(`#workerMetric option[value="${name}"]`).first().textContent();
        assert.match(option, /· derived/);
      }
      await page.screenshot({ path: path.join(OUT, `derived-${mode}.png`), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: percentile rows hold exactly the requests the CLI's stats name`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const d = cli(fx.report, "summary").meta.duration;
      const drawn = () => page.waitForFunction(() => {
        const s = traceExplorer.getState();
        return document.querySelector("#slowRows")?.dataset.range === `${s.from} ${s.to}`;
      });
      const rowIds = () =>
        page.evaluate(() =>
          [...document.querySelectorAll("#slowRows .slow-row")].map((r) => ({ p: Number(r.dataset.percentile), ids: [...r.querySelectorAll("button.req")].map((b) => b.dataset.request) })),
        );
      const want = (st, metric) => st.requests.slow[metric].map((r) => ({ p: r.percentile, ids: r.requests.map((x) => x.id) }));
      let st = cli(fx.report, "stats", { from: 0, to: d, limit: 200, name: "none" });
      await drawn();
      assert.deepEqual(await rowIds(), want(st, "latency"));
      assert.ok(st.requests.slow.latency[0].requests.length > 0);
      await page.click("#slowBy");
      assert.deepEqual(await rowIds(), want(st, "ttft"));
      await page.click("#slowBy");
      // A narrower range has its own rows.
      const [from, to] = [Math.round(d * 0.25 * 1000) / 1000, Math.round(d * 0.5 * 1000) / 1000];
      await page.evaluate(({ from, to }) => traceExplorer.selectRange(from, to), { from, to });
      st = cli(fx.report, "stats", { from, to, limit: 200, name: "none" });
      await drawn();
      assert.deepEqual(await rowIds(), want(st, "latency"));
      // Bars are clickable like any request, and say their latency and TTFT.
      const slowest = st.requests.slow.latency[2].requests[0];
      const bar = page.locator(`#slowRows .slow-row[data-percentile="99"] button[data-request="${slowest.id}"]`);
      assert.match(await bar.getAttribute("aria-label"), new RegExp(`latency ${slowest.latency_s.toFixed(3)} s · TTFT `));
      await bar.click();
      assert.equal((await page.evaluate(() => traceExplorer.getState())).request, slowest.id);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: the page opens on the slowest traced request by TTFT and says so`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const items = cli(fx.report, "requests", { limit: 1000 }).items.filter((r) => r.ttft_ms !== null && r.first !== null && r.workers.length && r.span_count > 0);
      const slowest = items.reduce((a, b) => (b.ttft_ms > a.ttft_ms ? b : a));
      const state = await page.evaluate(() => traceExplorer.getState());
      assert.equal(state.request, slowest.id);
      assert.match(await page.locator("#defaultNote").textContent(), /slowest request by TTFT/);
      const label = await page.locator(`#clientTracks .req[data-request="${slowest.id}"]`).first().getAttribute("aria-label");
      assert.match(label, /^Request .* · latency \d+\.\d{3} s · TTFT /);
      // Sessions sort by latency too.
      await page.selectOption("#sessionSort", "latency");
      assert.equal((await page.evaluate(() => traceExplorer.getState())).sort, "latency");
      const first = await page.evaluate(() => document.querySelector("#clientTracks .session-row")?.dataset.session);
      assert.equal(first, cli(fx.report, "sessions", { sort: "latency", limit: 1 }).items[0].id);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: keys and the wheel move the range as specified`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const d = cli(fx.report, "summary").meta.duration;
      const range = async () => {
        const s = await page.evaluate(() => traceExplorer.getState());
        return [s.from, s.to];
      };
      await page.evaluate((d) => traceExplorer.selectRange(d * 0.2, d * 0.6), d);
      await page.locator("body").click({ position: { x: 5, y: 5 } });
      await page.keyboard.press("w"); // half the width, same middle
      let [a, b] = await range();
      assert.ok(close(a, d * 0.3) && close(b, d * 0.5), `W: ${a} ${b}`);
      await page.keyboard.press("d"); // a quarter of the width right
      [a, b] = await range();
      assert.ok(close(a, d * 0.35) && close(b, d * 0.55), `D: ${a} ${b}`);
      await page.keyboard.press("a");
      await page.keyboard.press("s"); // double the width
      [a, b] = await range();
      assert.ok(close(a, d * 0.2) && close(b, d * 0.6), `A, S: ${a} ${b}`);
      // Ctrl+wheel zooms at the cursor: the time under it stays put.
      const lane = await page.locator("#clientTracks .lane").first().boundingBox();
      const x = lane.x + lane.width * 0.25;
      const t = a + 0.25 * (b - a);
      await page.mouse.move(x, lane.y + lane.height / 2);
      await page.keyboard.down("Control");
      await page.mouse.wheel(0, -100);
      await page.keyboard.up("Control");
      const [c, e] = await range();
      assert.ok(close(e - c, (b - a) / 1.25), `wheel width ${e - c}`);
      const px = (b - a) / lane.width; // the cursor sits on a whole pixel
      assert.ok(Math.abs(c + 0.25 * (e - c) - t) <= px, `the time under the cursor stayed: ${c + 0.25 * (e - c)} vs ${t}`);
      // , and . step through the selected request's session in start order.
      const st = await page.evaluate(() => traceExplorer.getState());
      const sess = (await page.evaluate((id) => traceExplorer.getRequest(id), st.request)).session;
      const order = cli(fx.report, "requests", { session: sess, limit: 1000 }).items.map((r) => r.id);
      const k = order.indexOf(st.request);
      await page.keyboard.press(k + 1 < order.length ? "." : ",");
      assert.equal((await page.evaluate(() => traceExplorer.getState())).request, order[k + 1 < order.length ? k + 1 : k - 1]);
      await page.keyboard.press(k + 1 < order.length ? "," : ".");
      assert.equal((await page.evaluate(() => traceExplorer.getState())).request, order[k]);
      // ? shows the keys; typing in a field moves nothing.
      assert.equal(await page.locator("#keysHelp").isHidden(), true);
      await page.keyboard.press("?");
      assert.equal(await page.locator("#keysHelp").isVisible(), true);
      assert.match(await page.locator("#keysHelp").textContent(), /zoom in/);
      await page.keyboard.press("Escape");
      const before = await range();
      await page.locator("#requestSearch").focus();
      await page.keyboard.press("w");
      assert.deepEqual(await range(), before);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
