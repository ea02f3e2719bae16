// Metric chart benchmark: opens a report with a metric capture from file://
// in Chromium. On the default view (default_view, three opens) it reads
// when the first chart was drawn, counted from navigation. Then, for the
// one-series family with the most samples and the family with the most
// series (each opened through a view link, so drawn once the engine is
// up), it measures the first chart drawn and the answer+render time of
// random zoom and pan ranges. Prints one JSON document.
//
//   node tools/browser/bench-metrics.mjs [--report DIR] [--samples 10000000] [--zooms 50] [--seed 1] [--settle MS] [--cold]
//
// Without --report it generates a run (100,000 requests, aiperf and
// tachometer sources, --samples capture rows) and builds it with bin/dsight.
// Each zoom starts at the beginning of a frame. zoom_ms is selectRange →
// whenMetricsReady() (the whole page re-render, request timeline included);
// zoom_frame_ms adds the style, layout and paint of the frame that shows it
// (exactly so when no shard had to be loaded, which would end the zoom in a
// later task whose frame is not counted); chart_ms, when the page records
// "dsight:metric-chart" measures, is the metric card alone (plan, shards,
// answer, decode and draw). Zooms start once the page has rehearsed a zoom
// in idle time after its first chart (web/src/rehearse.js: the
// "dsight:rehearsed" mark, reported as rehearsed_after_chart_ms), as a
// user's first drag would a moment after the chart appears; --cold starts
// them right after the first chart instead, which stops the rehearsal, so
// the first zooms pay for the browser compiling page and engine code.
// --settle MS waits longer; zoom_warm_ms leaves out the first 20 zooms.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, open, fileURL } from "./harness.mjs";
import { ROOT, BIN } from "./fixture.mjs";

const flag = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const zooms = Number(flag("zooms", 50));
const seed = Number(flag("seed", 1));
const settle = Number(flag("settle", 0));
const cold = process.argv.includes("--cold");
const WARMUP = 20;
let report = flag("report", null);
let work = null;
if (!report) {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run make build first`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-bench-metrics-"));
  const run = path.join(work, "run");
  report = path.join(work, "report");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-requests", "100000", "-sources", "aiperf,tachometer", "-samples", String(flag("samples", 10000000))], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(BIN, ["build", run, "-o", report], { stdio: ["ignore", "ignore", "inherit"] });
}
report = path.resolve(report);

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(2);
};
const stats = (xs) => (xs.length ? { n: xs.length, p50: pct(xs, 50), p95: pct(xs, 95), max: +Math.max(...xs).toFixed(2) } : null);

// ranges draws zooms random views: a zoom picks a width from 1/1000 of the
// run to all of it (log-uniform) and a start; a pan moves the previous view
// by up to its width. Seeded, so runs compare.
function ranges(d, n, seed) {
  let x = seed >>> 0 || 1;
  const rnd = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const out = [];
  let [a, b] = [0, d];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      const w = d * 10 ** (-3 * rnd());
      a = rnd() * (d - w);
      b = a + w;
    } else {
      const w = b - a;
      const shift = (rnd() * 2 - 1) * w;
      a = Math.min(Math.max(0, a + shift), d - w);
      b = a + w;
    }
    out.push([a, b]);
  }
  return out;
}

async function measure(browser, family) {
  const view = { metric: family.name, pinnedMetrics: [] };
  const { page, problems, readyAt } = await open(browser.context, `${fileURL(report)}#view=${encodeURIComponent(JSON.stringify(view))}`);
  try {
    const first = await page.evaluate(async () => {
      await traceExplorer.whenMetricsReady();
      return performance.now();
    });
    const drawn = await page.evaluate(() => JSON.parse(document.querySelector(".ds-metric-chart")?.dataset.drawnIds || "[]").length);
    const d = await page.evaluate(() => traceExplorer.describe().meta.duration);
    const rehearsed = cold
      ? null
      : await page.evaluate(async (first) => {
          for (let waited = 0; waited < 10000; waited += 50) {
            const m = performance.getEntriesByName("dsight:rehearsed")[0];
            if (m) return Math.round(m.startTime - first);
            await new Promise((r) => setTimeout(r, 50));
          }
          throw new Error("the page did not finish rehearsing a zoom within 10 s");
        }, first);
    if (settle > 0) await page.waitForTimeout(settle);
    const result = await page.evaluate(async (views) => {
      performance.clearMeasures("dsight:metric-chart");
      const frameStart = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      const nextTask = () =>
        new Promise((r) => {
          const c = new MessageChannel();
          c.port1.onmessage = () => r(performance.now());
          c.port2.postMessage(null);
        });
      const zoom = [];
      const frame = [];
      for (const [a, b] of views) {
        // Each zoom starts as a frame begins, as a drag's would; when it
        // needs no shard load it ends within that frame's task, so the
        // next task runs after the frame's style, layout and paint.
        const t0 = await frameStart();
        traceExplorer.selectRange(a, b);
        await traceExplorer.whenMetricsReady();
        zoom.push(performance.now() - t0);
        frame.push((await nextTask()) - t0);
      }
      const chart = performance.getEntriesByName("dsight:metric-chart").map((m) => m.duration);
      return { zoom, frame, chart };
    }, ranges(d, zooms, seed));
    return {
      name: family.name,
      series_count: family.series_count,
      samples: family.samples,
      drawn_series: drawn,
      first_chart_ms: Math.round(first),
      first_chart_after_ready_ms: Math.round(first - readyAt),
      rehearsed_after_chart_ms: rehearsed,
      ready_ms: Math.round(readyAt),
      zoom_ms: stats(result.zoom),
      zoom_warm_ms: stats(result.zoom.slice(WARMUP)),
      zoom_frame_ms: stats(result.frame),
      zoom_frame_warm_ms: stats(result.frame.slice(WARMUP)),
      chart_ms: stats(result.chart),
      problems,
    };
  } finally {
    await page.close();
  }
}

// defaultView opens the report on its default view, as a double-click
// does, and reads the page's marks (ms from navigation): the first chart
// (drawn from index.html before the engine loads), the engine up, the
// page ready, and the chart redrawn from the engine's answer.
async function defaultView(browser) {
  const { page, problems } = await open(browser.context, fileURL(report));
  try {
    const r = await page.evaluate(async () => {
      await traceExplorer.whenMetricsReady();
      const at = (name) => Math.round(performance.getEntriesByName(name)[0]?.startTime ?? NaN);
      return { metric: traceExplorer.getState().metric, first_chart_ms: at("dsight:first-chart"), engine_ms: at("dsight:engine"), ready_ms: at("dsight:ready"), engine_chart_ms: Math.round(performance.now()) };
    });
    if (problems.length) throw new Error(problems.join("\n"));
    return r;
  } finally {
    await page.close();
  }
}

const browser = await launch();
try {
  const { page, problems } = await open(browser.context, fileURL(report));
  const families = await page.evaluate(() => traceExplorer.listMetricFamilies());
  await page.close();
  if (problems.length) throw new Error(problems.join("\n"));
  // The first open above warmed the file cache; these are the next three.
  const opens = [];
  for (let i = 0; i < 3; i++) opens.push(await defaultView(browser));
  const byMost = (k) => (a, b) => b[k] - a[k] || b.samples - a.samples;
  const single = families.filter((f) => f.series_count === 1).sort(byMost("samples"))[0];
  const largest = [...families].sort(byMost("series_count"))[0];
  const out = { report, zooms, seed, settle_ms: settle, cold, default_view: opens, families: [] };
  for (const f of [single, largest].filter(Boolean)) out.families.push(await measure(browser, f));
  out.cpus = os.cpus().length;
  out.load_average = os.loadavg().map((x) => +x.toFixed(2));
  console.log(JSON.stringify(out, null, 2));
} finally {
  await browser.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
}
