// Conflicting carried settings: a generated TokenSpeed run whose decode
// worker logs a second, different max_batch_size at the very time of a
// reconfiguration. Zoomed just after it, queryMetrics' carried_setting lists
// both limits with their log lines (never one null), the limit chart draws
// both held lines, and the legend shows both values — from file:// and from
// a loopback HTTP server.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIN, OUT, ROOT } from "./fixture.mjs";
import { launch, open, serve, fileURL } from "./harness.mjs";

const LIMIT = "log_tokenspeed_decode_request_limit";
const LOG = "node-003_decode_w0.out";

let work;
let report;
let browser;
let server;
let conflictLine; // 1-based line of the inserted config

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-carried-"));
  const run = path.join(work, "run");
  report = path.join(work, "report");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "3", "-sources", "aiperf,tokenspeed", "-requests", "40"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  // Duplicate the log's second scheduler config with another limit, at the
  // same time: two limits recorded for one scope at one instant.
  const file = path.join(run, "logs", LOG);
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const configs = lines.flatMap((l, i) => (l.includes("Scheduler config:") ? [i] : []));
  assert.ok(configs.length >= 2, `${LOG} has ${configs.length} scheduler configs`);
  const at = configs[1];
  assert.match(lines[at], /max_batch_size=128 /);
  lines.splice(at + 1, 0, lines[at].replace("max_batch_size=128 ", "max_batch_size=96 "));
  conflictLine = at + 2;
  fs.writeFileSync(file, lines.join("\n"));
  execFileSync(BIN, ["build", run, "-o", report, "--iteration-timezone", "UTC"], { stdio: ["ignore", "ignore", "inherit"] });
  browser = await launch();
  await browser.context.addInitScript(() => {
    const made = (window.__dsightPlots = []);
    let U;
    Object.defineProperty(window, "uPlot", {
      configurable: true,
      get: () => U,
      set: (v) => {
        U = new Proxy(v, { construct: (t, args, nt) => made[made.push(Reflect.construct(t, args, nt)) - 1] });
      },
    });
  });
  server = await serve(report);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// coloured is the share of the chart's canvas pixels along y = value between
// the window's edges that are drawn (not background, not grey grid).
function coloured(page, name, value) {
  return page.evaluate(
    ([name, value]) => {
      const card = document.querySelector(`.metric-card[data-metric-name="${name}"]`);
      const u = window.__dsightPlots.filter((p) => card.contains(p.root)).pop();
      const ctx = u.root.querySelector("canvas").getContext("2d");
      const y = Math.round(u.valToPos(value, "y", true));
      const a = Math.ceil(u.valToPos(u.scales.x.min, "x", true)) + 4;
      const b = Math.floor(u.valToPos(u.scales.x.max, "x", true)) - 4;
      const img = ctx.getImageData(a, y - 1, b - a, 3).data;
      let hit = 0;
      for (let x = 0; x < b - a; x++) {
        let on = false;
        for (let r = 0; r < 3 && !on; r++) {
          const i = (r * (b - a) + x) * 4;
          on = img[i + 3] > 0 && Math.max(img[i], img[i + 1], img[i + 2]) - Math.min(img[i], img[i + 1], img[i + 2]) > 30;
        }
        if (on) hit++;
      }
      return hit / (b - a);
    },
    [name, value],
  );
}

for (const mode of ["file", "http"]) {
  test(`${mode}: two limits recorded at one time are both carried, drawn and listed`, async () => {
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(report) : server.url);
    try {
      // The conflicting timestamp: the series' gap row among its settings.
      const whole = await page.evaluate((name) => traceExplorer.queryMetrics({ name, worker: "decode-0", points: true }), LIMIT);
      assert.equal(whole.length, 1, `${whole.length} decode-0 limit series`);
      const gap = whole[0].points.find((p) => p[1] === null && p[3] === conflictLine - 1);
      assert.ok(gap, `no gap row at line ${conflictLine - 1}: ${JSON.stringify(whole[0].points)}`);
      const t0 = gap[0];
      const next = whole[0].points.find((p) => p[0] > t0);
      const from = t0 + 0.05;
      const to = Math.min(next ? next[0] - 0.05 : t0 + 1, from + 0.4);
      const items = await page.evaluate(([name, from, to]) => traceExplorer.queryMetrics({ name, worker: "decode-0", from, to }), [LIMIT, from, to]);
      const src = gap[2];
      assert.deepEqual(items[0].carried_setting, [
        [t0, 128, src, conflictLine - 1],
        [t0, 96, src, conflictLine],
      ]);
      await page.evaluate(([name, from, to]) => {
        traceExplorer.setState({ pinnedMetrics: [name], metric: name, from, to });
        return traceExplorer.whenMetricsReady();
      }, [LIMIT, from, to]);
      const row = page.locator(`.metric-card[data-metric-name="${LIMIT}"] .ds-metric-legend-row[data-series-id="${whole[0].id}"] .ds-metric-value`);
      const text = await row.textContent();
      assert.match(text, /held 128 requests and 96 requests \(conflicting\)/);
      assert.doesNotMatch(text, /null/);
      for (const v of [128, 96]) {
        const share = await coloured(page, LIMIT, v);
        assert.ok(share > 0.5, `the held limit ${v} is drawn over ${(share * 100).toFixed(0)}% of the window`);
      }
      if (mode === "file") {
        fs.mkdirSync(OUT, { recursive: true });
        await page.locator(`.metric-card[data-metric-name="${LIMIT}"]`).screenshot({ path: path.join(OUT, "carried-conflict.png") });
      }
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
