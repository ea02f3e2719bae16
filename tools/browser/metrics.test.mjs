// The metrics views of a generated report with metric families, in Debian's
// chromium from file:// and from a loopback HTTP server: the metric API
// answers equal the CLI's, charts draw, follow the shared range and set it
// by dragging, pins and legends round-trip through the state and the view
// link, labels stay text, and a 390 px page never scrolls sideways.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { execFileSync } from "node:child_process";
import os from "node:os";
import { buildReport, cli, BIN, OUT, ROOT } from "./fixture.mjs";

let fx;
let browser;
let server;

before(async () => {
  fx = buildReport({ seed: 1, hostile: true });
  browser = await launch();
  server = await serve(fx.report);
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

// metricsCLI asks the CLI's metrics kind (or the page's variant of it,
// page_metrics, asked with --internal as the CLI refuses internal kinds
// otherwise); --points is a bare boolean flag.
function metricsCLI(report, flags, kind = "metrics") {
  const args = ["query", report, kind, ...(kind === "metrics" ? [] : ["--internal"])];
  for (const [k, v] of Object.entries(flags)) args.push(k === "points" ? `--points=${v}` : `--${k}`, ...(k === "points" ? [] : [String(v)]));
  return JSON.parse(execFileSync(BIN, args, { encoding: "utf8", maxBuffer: 256 << 20 }));
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

for (const mode of ["file", "http"]) {
  const url = () => (mode === "file" ? fileURL(fx.report) : server.url);

  test(`${mode}: metric API answers equal the CLI's`, async () => {
    const { page, problems } = await open(browser.context, url());
    try {
      const summary = cli(fx.report, "summary");
      assert.equal(summary.capabilities.metrics, true, "the generated run has metrics");
      const described = await page.evaluate(() => traceExplorer.describe());
      for (const m of ["listMetricFamilies", "listMetricSeries", "queryMetrics", "metricDataStatus", "whenMetricsReady"]) assert.ok(described.capabilities.includes(m), m);

      const families = cli(fx.report, "metric_families");
      assert.deepEqual(await page.evaluate(() => traceExplorer.listMetricFamilies()), families.items);
      const name = families.items.find((f) => f.series_count > 1)?.name ?? families.items[0].name;
      // The page lists every matching series as an array with labels as an
      // object (the reference's shape); the CLI pages the same records.
      const listed = await page.evaluate((name) => traceExplorer.listMetricSeries({ name }), name);
      assert.deepEqual(listed, cli(fx.report, "page_metric_series", { name, internal: true }));
      const paged = cli(fx.report, "metric_series", { name, limit: 1000 });
      assert.ok(Array.isArray(listed) && listed.length === paged.total, `${listed.length} of ${paged.total} series`);
      assert.deepEqual(listed.map((s) => s.id), paged.items.map((s) => s.id));
      for (const [k, s] of listed.entries()) assert.deepEqual(s.labels, Object.fromEntries((paged.items[k].labels || []).map((l) => [l.key, l.value])));

      // The family's summaries share pack scripts (report format 8), each
      // still its own shard with its own hash: the answers below are read
      // from packs, on the page as by the CLI.
      const shards = metricsCLI(fx.report, { name, limit: 1000 }).items.map((s) => s.shard);
      assert.ok(shards.length > 1 && shards.every((s) => s.parts.length === 1 && s.parts[0].pack && s.parts[0].id === s.id), JSON.stringify(shards[0]));
      assert.ok(new Set(shards.map((s) => s.parts[0].path)).size < shards.length, "the family's summaries share packs");

      const d = summary.meta.duration;
      const series = cli(fx.report, "metric_series", { name, limit: 1 }).items[0];
      const cases = [
        [{ name, from: 0, to: d }, { name, from: 0, to: d }],
        [{ name, from: d / 4, to: d / 2, points: true }, { name, from: d / 4, to: d / 2, points: true }],
        [{ from: 0, to: d }, { from: 0, to: d }],
      ];
      if (series.worker !== null) cases.push([{ name, worker: series.worker, from: 1, to: d - 1, points: true }, { name, worker: series.worker, from: 1, to: d - 1, points: true }]);
      if (series.rank !== null) cases.push([{ name, rank: Number(series.rank), from: 0, to: d }, { name, rank: series.rank, from: 0, to: d }]);
      for (const [pageArgs, cliArgs] of cases) {
        const fromPage = await page.evaluate((a) => traceExplorer.queryMetrics(a), pageArgs);
        assert.deepEqual(fromPage, metricsCLI(fx.report, cliArgs, "page_metrics"), JSON.stringify(pageArgs));
        // Every matching series, in catalogue order, with the statistics and
        // points of the CLI's paged answer.
        const cliPage = metricsCLI(fx.report, { ...cliArgs, limit: 1000 });
        assert.equal(fromPage.length, cliPage.total, JSON.stringify(pageArgs));
        for (const [k, s] of fromPage.entries()) {
          const c = cliPage.items[k];
          assert.deepEqual([s.id, s.samples, s.min, s.max, s.mean, s.last, s.first_time, s.last_time, s.points], [c.id, c.samples, c.min, c.max, c.mean, c.last, c.first_time, c.last_time, c.points]);
          assert.equal(typeof s.labels, "object");
          assert.ok(!Array.isArray(s.labels), "labels map name to value");
          // Every point is [t, value, source_id, source_row_or_line] and
          // names a file of the series and a row in it.
          for (const p of s.points || []) assert.ok(p.length === 4 && s.source_ids.includes(p[2]) && Number.isInteger(p[3]) && p[3] >= 0, `series ${s.id} point ${JSON.stringify(p)}`);
        }
        if (pageArgs.points) assert.ok(fromPage.some((s) => s.points.length > 0), "some points to check");
      }
      const status = await page.evaluate(() => traceExplorer.metricDataStatus());
      assert.equal(status.pendingShards, 0);
      assert.ok(status.cachedShards > 0 && status.cachedPoints > 0, JSON.stringify(status));
      // Families by name, as the reference reports them.
      assert.ok(Array.isArray(status.cachedFamilies) && status.cachedFamilies.includes(name), JSON.stringify(status.cachedFamilies));
      assert.deepEqual(status.pendingFamilies, []);
      await assert.rejects(page.evaluate(() => traceExplorer.queryMetrics({ from: 5, to: 1 })), /Range must satisfy/);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: the default view's chart is drawn before the engine loads, then adopted`, async () => {
    // Before any page script: note what the page shows when it marks its first chart.
    const init = () => {
      const mark = performance.mark.bind(performance);
      performance.mark = (name, ...rest) => {
        if (name === "dsight:first-chart") {
          const chart = document.querySelector(".ds-metric-chart");
          window.__early = {
            engineUp: typeof window.dsightEngine === "object",
            card: document.querySelector(".metric-card"),
            name: document.querySelector(".metric-card")?.dataset.metricName,
            drawn: chart?.dataset.drawnIds,
            legend: [...document.querySelectorAll(".ds-metric-value")].map((e) => e.textContent),
            pixels: [...document.querySelectorAll("#metricCards canvas")].length,
          };
        }
        return mark(name, ...rest);
      };
    };
    let { page, problems } = await open(browser.context, url(), { init });
    try {
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      const early = await page.evaluate(() => ({ ...window.__early, card: undefined, same: window.__early.card === document.querySelector(".metric-card") }));
      const now = await page.evaluate(() => ({
        metric: traceExplorer.getState().metric,
        drawn: document.querySelector(".ds-metric-chart").dataset.drawnIds,
        legend: [...document.querySelectorAll(".ds-metric-value")].map((e) => e.textContent),
        sections: document.querySelectorAll("#metrics").length,
        cards: document.querySelectorAll(".metric-card").length,
      }));
      assert.equal(early.engineUp, false, "drawn before the engine was up");
      assert.equal(early.pixels, 1);
      assert.equal(early.name, cli(fx.report, "default_metric", { internal: true }));
      assert.equal(now.metric, early.name);
      assert.equal(early.same, true, "the card drawn early is the card the page keeps");
      assert.equal(now.sections, 1);
      assert.equal(now.cards, 1);
      assert.equal(early.drawn, now.drawn);
      assert.deepEqual(early.legend, now.legend);
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
    // A view link draws nothing early: its chart waits for the engine.
    ({ page, problems } = await open(browser.context, `${url()}#view=${encodeURIComponent(JSON.stringify({ pinnedMetrics: [] }))}`, { init }));
    try {
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      assert.equal(await page.evaluate(() => window.__early.engineUp), true);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: charts draw, follow the range, pin and round-trip`, async () => {
    const { page, problems, readyAt } = await open(browser.context, url());
    try {
      const firstChart = await page.evaluate(async () => {
        await traceExplorer.whenMetricsReady();
        return performance.now();
      });
      console.log(`# ${mode}: first metric chart drawn ${(firstChart - readyAt).toFixed(0)} ms after ready`);
      const card = page.locator(".metric-card").first();
      assert.ok(await card.getAttribute("data-metric-name"));
      assert.ok((await page.locator(".dsight-metric-panel .u-over").count()) >= 1);
      assert.ok((await page.locator(".ds-metric-chart").first().getAttribute("data-drawn-ids")).length > 0);

      // Options are grouped "Component / Group", Frontend first.
      const groups = await page.$$eval("#workerMetric optgroup", (gs) => gs.map((g) => g.label));
      assert.match(groups[0], /^Frontend \/ /);
      // Search narrows the list and reports the count.
      await page.fill("#metricSearch", "sglang");
      await page.waitForFunction(() => [...document.querySelectorAll("#workerMetric option")].every((o) => o.textContent.includes("sglang") || o.parentElement.label.endsWith("current selection") || o.parentElement.label === "Current selection"));
      const opts = await page.$$eval("#workerMetric option", (os) => os.map((o) => o.textContent));
      assert.match(await page.textContent("#metricCount"), new RegExp(`^\\d+ / ${(await page.evaluate(() => traceExplorer.listMetricFamilies().length))} metrics$`));
      assert.ok(opts.some((t) => t.includes("sglang")));

      // Pins via setState: unknown names dropped, duplicates removed, order kept.
      const fams = await page.evaluate(() => traceExplorer.listMetricFamilies().map((f) => f.name));
      const [a, b, c] = [fams[1], fams[2], fams[3]];
      let st = await page.evaluate(([a, b, c]) => traceExplorer.setState({ pinnedMetrics: [b, "no-such-metric", a, b], metric: c, metricCharts: { [JSON.stringify(["metric", b])]: { hidden: [] } } }), [a, b, c]);
      assert.deepEqual(st.pinnedMetrics, [b, a]);
      assert.equal(st.metric, c);
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      assert.deepEqual(await page.$$eval(".metric-card", (cs) => cs.map((x) => x.dataset.metricName)), [b, a, c]);
      // Moving keeps the order in the state.
      await page.locator(`.metric-card[data-metric-name="${b}"] [data-action=move-metric-down]`).click();
      st = await page.evaluate(() => traceExplorer.getState());
      assert.deepEqual(st.pinnedMetrics, [a, b]);
      // Omission keeps the pins; an unknown metric falls back to the default.
      st = await page.evaluate(() => traceExplorer.setState({ metric: "no-such-metric" }));
      assert.deepEqual(st.pinnedMetrics, [a, b]);
      assert.ok(fams.includes(st.metric));

      // A legend toggle persists in metricCharts.
      const key = JSON.stringify(["metric", a]);
      const toggle = page.locator(`.dsight-metric-panel[data-metric-key='${key}'] .ds-metric-legend-toggle`).first();
      await toggle.click();
      assert.equal(await toggle.getAttribute("aria-pressed"), "false");
      st = await page.evaluate(() => traceExplorer.getState());
      assert.equal(st.metricCharts[key].hidden.length, 1);

      // The view link restores pins, metric and hidden series.
      const saved = st;
      const link = `${url()}#view=${encodeURIComponent(JSON.stringify(saved))}`;
      const again = await open(browser.context, link);
      try {
        const restored = await again.page.evaluate(async () => {
          await traceExplorer.whenMetricsReady();
          return traceExplorer.getState();
        });
        assert.deepEqual(restored.pinnedMetrics, saved.pinnedMetrics);
        assert.equal(restored.metric, saved.metric);
        assert.deepEqual(restored.metricCharts, saved.metricCharts);
        assert.equal(await again.page.locator(`.dsight-metric-panel[data-metric-key='${key}'] .ds-metric-legend-toggle`).first().getAttribute("aria-pressed"), "false");
        assert.deepEqual(again.problems, []);
      } finally {
        await again.page.close();
      }
      // An empty array clears the pins.
      st = await page.evaluate(() => traceExplorer.setState({ pinnedMetrics: [] }));
      assert.deepEqual(st.pinnedMetrics, []);

      // Values carry their recorded-sample title.
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      const title = await page.locator(".ds-metric-value[title]").first().getAttribute("title");
      assert.match(title, /^Recorded (sample|setting|request event) at [\d.]+ elapsed seconds: /);

      // Hovering the plot reads out the time and the values under the cursor.
      const over = page.locator(".u-over").first();
      const box = await over.boundingBox();
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
      assert.match(await page.locator(".ds-metric-hover").first().textContent(), /^[\d.]+ s/);
      // Dragging on the plot sets the shared range; charts follow it.
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      st = await page.evaluate(() => traceExplorer.getState());
      const d = (await page.evaluate(() => traceExplorer.describe())).meta.duration;
      assert.ok(st.from > 0.2 * d && st.to < 0.6 * d, `range after drag ${st.from}–${st.to}`);
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      const name = await page.locator(".metric-card").first().getAttribute("data-metric-name");
      const shown = cli(fx.report, "metrics", { name, from: st.from, to: st.to });
      const legendRows = await page.locator(".metric-card").first().locator(".ds-metric-legend-row").count();
      assert.equal(legendRows, shown.items.length);

      // Zoom: answer + render time per range change.
      const times = await page.evaluate(async (d) => {
        const out = [];
        for (let i = 0; i < 20; i++) {
          const w = d / (2 + (i % 7));
          const from = ((i * 37) % 100) / 100 * (d - w);
          const t0 = performance.now();
          traceExplorer.selectRange(from, from + w);
          await traceExplorer.whenMetricsReady();
          out.push(performance.now() - t0);
        }
        return out;
      }, d);
      console.log(`# ${mode}: zoom answer+render p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

// countEvents runs before the page's scripts: it counts the page's state
// and metrics-ready announcements.
function countEvents() {
  window.__announced = { state: 0, metrics: 0 };
  window.addEventListener("trace-explorer:state", () => window.__announced.state++);
  window.addEventListener("trace-explorer:metrics-ready", () => window.__announced.metrics++);
}

// countEngineCalls counts, from now on, the questions the page asks the engine.
function countEngineCalls() {
  window.__engineCalls = 0;
  const e = window.dsightEngine;
  for (const k of ["handle", "plot"]) {
    const f = e[k];
    e[k] = (...a) => (window.__engineCalls++, f(...a));
  }
}

// looks is everything a rehearsal must leave as it was: state, what the
// page shows (chart pixels included), what it announced and what it holds.
function looks() {
  return {
    state: traceExplorer.getState(),
    tracks: document.getElementById("clientTracks").innerHTML,
    cards: document.getElementById("metricCards").innerHTML,
    pixels: [...document.querySelectorAll("#metricCards canvas")].map((c) => c.toDataURL()),
    announced: { ...window.__announced },
    status: traceExplorer.metricDataStatus(),
  };
}

const rehearsed = () => performance.getEntriesByName("dsight:rehearsed").length > 0;

test("idle rehearsal of a zoom asks the engine, changes nothing, and yields to the user", async () => {
  const url = `${fileURL(fx.report)}#view=${encodeURIComponent(JSON.stringify({ pinnedMetrics: [] }))}`;
  // Left alone, the page rehearses after its first chart.
  let { page, problems } = await open(browser.context, url, { init: countEvents });
  try {
    await page.evaluate(() => traceExplorer.whenMetricsReady());
    assert.equal(await page.evaluate(rehearsed), false, "rehearsal finished before the test could look");
    const before = await page.evaluate(looks);
    await page.evaluate(countEngineCalls);
    await page.waitForFunction(rehearsed, null, { timeout: 20000 });
    assert.ok((await page.evaluate(() => window.__engineCalls)) >= 40, "each round asks the engine");
    assert.deepEqual(await page.evaluate(looks), before);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
  // A zoom right after ready ends it, before or after it began.
  ({ page, problems } = await open(browser.context, url));
  try {
    await page.evaluate(async () => {
      const st = traceExplorer.getState();
      traceExplorer.selectRange(st.from, st.from + (st.to - st.from) / 3);
      await traceExplorer.whenMetricsReady();
      // The range statistics and percentile rows answer a new range once it
      // has settled (60 and 80 ms timers set by the zoom): a timer set now
      // fires after them, so what is counted below is what comes after the
      // page's answer to the zoom, which a rehearsal must not add to.
      await new Promise((r) => setTimeout(r, 200));
    });
    await page.evaluate(countEngineCalls);
    await page.waitForTimeout(1500);
    assert.equal(await page.evaluate(() => window.__engineCalls), 0);
    assert.equal(await page.evaluate(rehearsed), false);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

// A script's run of synchronous view changes (or a drag's) waits for no
// metric plot: the charts ask for theirs once the calls have returned, and
// only for the view the run ended on.
test("a run of synchronous zooms asks for no plot within the calls; the charts draw the last view", async () => {
  const { page, problems } = await open(browser.context, fileURL(fx.report));
  try {
    await page.evaluate(() => traceExplorer.whenMetricsReady());
    const r = await page.evaluate(async () => {
      const e = window.dsightEngine;
      const handle = e.handle;
      let plots = 0;
      e.handle = (q, ...rest) => {
        if (typeof q === "string" && q.includes('"op":"plot"')) plots++;
        return handle(q, ...rest);
      };
      const charts = window.DSightMetricCharts;
      const mount = charts.mount;
      const mounted = [];
      charts.mount = (panel, opts) => (mounted.push([opts.from, opts.to]), mount(panel, opts));
      const d = traceExplorer.describe().meta.duration;
      let last = null;
      for (let k = 1; k <= 10; k++) last = traceExplorer.selectRange((d * k) / 40, (d * k) / 40 + d * 0.3);
      const within = plots;
      await traceExplorer.whenMetricsReady();
      return { within, after: plots, mounted, last: [last.from, last.to], cards: document.querySelectorAll("#metricCards .metric-card").length };
    });
    assert.equal(r.within, 0, "a plot was asked for inside the synchronous calls");
    assert.ok(r.cards > 0 && r.after >= r.cards, JSON.stringify(r));
    assert.ok(r.mounted.length >= r.cards, JSON.stringify(r.mounted));
    for (const m of r.mounted) assert.deepEqual(m, r.last, "a chart drew a view the run passed through");
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a first chart that cannot be drawn early is drawn from the engine", async () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-early-"));
  try {
    fs.cpSync(fx.report, copy, { recursive: true });
    const index = path.join(copy, "index.html");
    const html = fs.readFileSync(index, "utf8");
    const damaged = html.replace(/"plot":"[^"]*"/, '"plot":"AAAA"');
    assert.notEqual(damaged, html, "the boot record has a first chart");
    fs.writeFileSync(index, damaged);
    const { page, problems } = await open(browser.context, fileURL(copy));
    try {
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      const r = await page.evaluate(() => ({
        error: document.getElementById("error").hidden,
        sections: document.querySelectorAll("#metrics").length,
        drawn: document.querySelector(".ds-metric-chart")?.dataset.drawnIds,
        firstAfterEngine: performance.getEntriesByName("dsight:first-chart")[0].startTime > performance.getEntriesByName("dsight:engine")[0].startTime,
      }));
      assert.deepEqual(r, { error: true, sections: 1, drawn: r.drawn || "missing", firstAfterEngine: true });
      assert.notEqual(r.drawn, "missing");
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});

test("labels stay text; narrow page does not scroll sideways; screenshot", async () => {
  const { page, problems } = await open(browser.context, fileURL(fx.report), { width: 390, height: 900 });
  try {
    await page.evaluate(() => traceExplorer.whenMetricsReady());
    // A label value from the report appears as text in the Labels disclosure.
    const name = await page.locator(".metric-card").first().getAttribute("data-metric-name");
    const s = cli(fx.report, "metric_series", { name, limit: 1 }).items[0];
    const pre = await page.locator(".metric-card").first().locator(".ds-metric-labels pre").first().textContent();
    assert.ok(pre.includes(JSON.stringify(s.raw_name).slice(1, -1)) || pre.includes(s.raw_name.replace(/"/g, '\\"')), pre);
    // Hostile strings handed to the mounter render literally.
    const hostile = await page.evaluate(() => {
      const host = document.createElement("div");
      document.body.appendChild(host);
      const evil = '<img src=x onerror="window.__pwned=1">';
      const item = { id: 9, name: "x", label: evil, unit: "u", worker: evil, host: null, gpu: null, rank: null, labels: [{ key: "k", value: evil }], temporal: "sample", samples: 1, last: 1, last_time: 1, points: [[1, 1]] };
      const chart = window.DSightMetricCharts.mount(host, { from: 0, to: 2, items: [item] });
      const r = { text: host.textContent.includes(evil), imgs: host.querySelectorAll("img").length, pwned: !!window.__pwned };
      chart.destroy();
      host.remove();
      return r;
    });
    assert.deepEqual(hostile, { text: true, imgs: 0, pwned: false });
    // The mounter is looked up through window at render time; a failing
    // mount shows on the card and rejects whenMetricsReady.
    const failed = await page.evaluate(async () => {
      const mounter = window.DSightMetricCharts;
      let mounts = 0;
      window.DSightMetricCharts = { mount: () => { mounts++; throw new Error("mount refused"); } };
      const st = traceExplorer.getState();
      traceExplorer.selectRange(st.from, st.to / 2);
      const err = await traceExplorer.whenMetricsReady().then(() => null, (e) => e.message);
      const text = document.querySelector(".dsight-metric-panel").textContent;
      window.DSightMetricCharts = mounter;
      const event = new Promise((r) => window.addEventListener("trace-explorer:metrics-ready", (e) => r(e.detail), { once: true }));
      traceExplorer.selectRange(st.from, st.to);
      await traceExplorer.whenMetricsReady();
      return { mounts, err, text, detail: await event, metric: traceExplorer.getState().metric };
    });
    assert.ok(failed.mounts >= 1);
    assert.equal(failed.err, "mount refused");
    assert.match(failed.text, /Could not load this metric: mount refused/);
    assert.deepEqual(failed.detail, { metric: failed.metric });
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(scroll <= 0, `horizontal overflow ${scroll}px at 390 px`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("capacity: limit drawn dashed, summary follows the engine's answer on every zoom", async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-capacity-"));
  const run = path.join(work, "run");
  const report = path.join(work, "report");
  try {
    execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "5", "-requests", "300", "-hostile", "-sources", "aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    execFileSync(BIN, ["build", run, "-o", report, "--iteration-timezone", "UTC"], { stdio: ["ignore", "ignore", "inherit"] });
    const name = "log_tokenspeed_active_decode_requests";
    const { page, problems } = await open(browser.context, fileURL(report));
    try {
      const expectText = (c, unit) => {
        const out = [`Peak observed ${c.peak[1].toLocaleString("en-US", { maximumFractionDigits: 4 })} ${unit}`];
        if (c.limit === "constant") out.push(`${c.limit_min.toLocaleString("en-US", { maximumFractionDigits: 4 })}`);
        if (c.highest_usage) out.push(`Highest observed usage ${(c.highest_usage[1] * 100).toLocaleString("en-US", { maximumFractionDigits: 1 })}%`);
        return out;
      };
      const d = (await page.evaluate(() => traceExplorer.describe())).meta.duration;
      for (const [from, to] of [[0, d], [d / 4, d / 2]]) {
        await page.evaluate(([name, from, to]) => {
          traceExplorer.setState({ pinnedMetrics: [name], from, to });
          return traceExplorer.whenMetricsReady();
        }, [name, from, to]);
        const want = metricsCLI(report, { name, from, to }).items.find((s) => s.capacity);
        assert.ok(want, "a series with a limit");
        const shown = await page.locator(`.metric-card[data-metric-name="${name}"] .ds-capacity`).first().textContent();
        for (const t of expectText(want.capacity, want.unit)) assert.ok(shown.includes(t), `${shown} lacks ${t}`);
      }
      await page.evaluate((d) => traceExplorer.selectRange(0, d), d);
      await page.evaluate(() => traceExplorer.whenMetricsReady());
      // The chart plots every row of the full range, not the engine's first page.
      assert.equal(await page.locator(`.metric-card[data-metric-name="${name}"] .ds-metric-note`).count(), 0);
      await page.locator(`.metric-card[data-metric-name="${name}"]`).screenshot({ path: path.join(OUT, "metrics-capacity.png") });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
