// Stacked bands, from file:// and from a loopback HTTP server: on a
// disaggregated run the in-flight requests served by each worker stack
// within the worker's role. At two hover times every band top equals the
// cumulative sum of the engine's own values (queryMetrics points) held at
// that time, the band legend names each band, and the chart says it is
// stacked; where the window holds more changes than are asked for exactly,
// the bands are per-pixel maxima, labelled as an upper bound.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { buildReport, cli, OUT } from "./fixture.mjs";

const NAME = "session_in_flight_requests";
const SHOTS = process.env.DSIGHT_SHOTS || OUT;
let fx;
let browser;
let server;

before(async () => {
  fx = buildReport({ seed: 3, requests: 3000, hostile: false, sources: "aiperf,frontend,otel,workers" });
  browser = await launch();
  server = await serve(fx.report);
  fs.mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

const close = (a, b) => Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

// heldAt asks the engine (queryMetrics, as a script would) for the
// family's rows of a short window ending at t, and returns per series id
// the value held at t: its last row at or before t, else the setting
// carried into the window; null when none.
async function heldAt(page, t) {
  const answer = await page.evaluate(({ name, from, to }) => traceExplorer.queryMetrics({ name, points: true, from, to }), { name: NAME, from: Math.max(0, t - 1), to: t });
  const out = new Map();
  for (const s of answer) {
    assert.equal(s.points_truncated, false);
    let v = s.carried_setting?.length === 1 ? s.carried_setting[0][1] : null;
    for (const [pt, pv] of s.points) if (pt <= t) v = pv;
    out.set(s.id, { v, labels: s.labels });
  }
  return out;
}

// members lists the worker series of role, in worker order, as the CLI
// names them.
function members(role) {
  const items = cli(fx.report, "metric_series", { name: NAME, limit: 1000 }).items;
  const label = (s, k) => (s.labels || []).find((l) => l.key === k)?.value;
  return items.filter((s) => label(s, "role") === role).sort((a, b) => label(a, "worker").localeCompare(label(b, "worker"), "en-US", { numeric: true }));
}

async function showFamily(page) {
  await page.evaluate((metric) => traceExplorer.setState({ metric }), NAME);
  await page.evaluate(() => traceExplorer.whenMetricsReady());
  const card = page.locator(`.metric-card[data-metric-name="${NAME}"]`);
  await card.locator(".ds-stack[data-stacked]").waitFor();
  await card.scrollIntoViewIfNeeded();
  return card;
}

// hoverAt moves the cursor to fraction x of the plot and returns the band
// legend's data and text.
async function hoverAt(page, card, x) {
  const over = card.locator(".u-over");
  const box = await over.boundingBox();
  await page.mouse.move(box.x + box.width * x, box.y + box.height / 2);
  const legend = card.locator(".ds-stack-legend");
  await page.waitForFunction((el) => !!el.dataset.bands, await legend.elementHandle());
  return { data: JSON.parse(await legend.getAttribute("data-bands")), text: await legend.textContent() };
}

for (const mode of ["file", "http"]) {
  const url = () => (mode === "file" ? fileURL(fx.report) : server.url);

  test(`${mode}: band tops are the cumulative sums of the engine's values`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const f = (await page.evaluate(() => traceExplorer.listMetricFamilies())).find((x) => x.name === NAME);
      assert.deepEqual(f.stack_by, ["worker"]);
      assert.deepEqual(f.stack_within, { worker: "role" });
      const card = await showFamily(page);
      for (const role of ["decode", "prefill"]) {
        if (role !== "decode") {
          await card.locator(`.ds-stack-group[data-stack="worker role=${role}"]`).click();
        }
        const stack = card.locator(".ds-stack");
        assert.equal(await stack.getAttribute("data-stacked"), `worker role=${role}`);
        assert.equal(await card.locator(".ds-metric-chart").getAttribute("data-stacked"), `worker role=${role}`);
        assert.equal(await stack.getAttribute("data-exact"), "true", "a window of few changes is drawn from exact step values");
        const ms = members(role);
        assert.ok(ms.length >= 2, `${role}: several workers`);
        for (const x of [0.3, 0.7]) {
          const { data, text } = await hoverAt(page, card, x);
          assert.equal(data.exact, true);
          assert.deepEqual(data.bands.map((b) => b.id), ms.map((s) => s.id), "bands in worker order");
          const engine = await heldAt(page, data.t);
          let sum = 0;
          data.bands.forEach((b, k) => {
            const v = engine.get(ms[k].id).v;
            assert.notEqual(v, null, `${role} ${b.caption} holds a value at ${data.t}`);
            sum += v;
            assert.ok(close(b.value, v), `${b.caption} at ${data.t}: ${b.value} vs engine ${v}`);
            assert.ok(close(b.top, sum), `${b.caption} top at ${data.t}: ${b.top} vs cumulative ${sum}`);
            assert.ok(text.includes(`${b.caption} `), `legend names ${b.caption}: ${text}`);
          });
          assert.ok(close(data.total, sum) && text.includes("stack total"), text);
          const all = [...engine.values()].find((s) => !Object.keys(s.labels || {}).length).v;
          assert.ok(close(data.all, all) && data.all >= data.total, `all requests ${data.all} vs engine ${all}, stack ${data.total}`);
        }
        await card.screenshot({ path: path.join(SHOTS, `bands-${role}-${mode}.png`) });
      }
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: too many changes to ask for: bands at per-pixel maxima, labelled an upper bound`, async () => {
    const { page, problems } = await open(browser.context, `${url()}?stack-exact-rows=0`);
    try {
      const card = await showFamily(page);
      const stack = card.locator(".ds-stack");
      assert.equal(await stack.getAttribute("data-exact"), "false");
      assert.match(await card.locator(".ds-metric-notes").textContent(), /per-pixel|pixel's recorded maximum.*upper bound/);
      const { data, text } = await hoverAt(page, card, 0.5);
      assert.equal(data.exact, false);
      assert.match(text, /upper bound/);
      const engine = await heldAt(page, data.t);
      let sum = 0;
      for (const b of data.bands) {
        sum += engine.get(b.id).v;
        assert.ok(b.top >= sum - 1e-9, `${b.caption}: a maximum ${b.top} bounds the exact sum ${sum}`);
      }
      await card.screenshot({ path: path.join(SHOTS, `bands-maxima-${mode}.png`) });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
