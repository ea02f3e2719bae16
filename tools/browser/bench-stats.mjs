// Range statistics benchmark: opens a report from file:// in Chromium and
// times traceExplorer.rangeStats over the whole run and over 1 % of it,
// for the requests with one session family's series (shards loaded by a
// first call, so the numbers are the engine's answer, not the loading),
// and the page's synchronous requests-only answer that the percentile rows
// and the statistics panel draw from: the median and least wall time of a
// call and the renderer's CPU time per call, with the load average. Prints
// one JSON document.
//
//   node tools/browser/bench-stats.mjs [--report DIR] [--requests 100000] [--runs 20]
//
// Without --report it generates a client-only run (aiperf) of --requests
// requests and builds it with bin/dsight.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, fileURL } from "./harness.mjs";
import { ROOT, BIN } from "./fixture.mjs";

// rendererCPU is the user+system CPU time, in ms, of the renderer
// processes of the browser whose profile is dir (Linux /proc): on a loaded
// machine wall time is mostly waiting for a core, CPU time is the cost.
function rendererCPU(dir) {
  const tick = 1000 / 100; // USER_HZ
  let ms = 0;
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("--type=renderer") || !cmd.includes(dir)) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ms += (Number(f[11]) + Number(f[12])) * tick;
    } catch {
      // the process ended meanwhile
    }
  }
  return ms;
}

const flag = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const runs = Number(flag("runs", 20));
let report = flag("report", null);
let work = null;
if (!report) {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-bench-stats-"));
  const run = path.join(work, "run");
  report = path.join(work, "report");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-requests", flag("requests", "100000"), "-sources", "aiperf"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(BIN, ["build", run, "-o", report], { stdio: ["ignore", "ignore", "inherit"] });
}
const browser = await launch();
try {
  // A large report on a loaded machine can take longer to open than the
  // harness's test timeouts allow.
  const page = await browser.context.newPage();
  page.setDefaultTimeout(300000);
  await page.goto(fileURL(report));
  await page.waitForFunction(() => window.traceExplorer !== undefined, null, { timeout: 300000 });
  const info = await page.evaluate(async () => {
    const d = traceExplorer.describe().meta.duration;
    return { duration_s: d, requests: traceExplorer.queryRequests({ limit: 0 }).total };
  });
  const d = info.duration_s;
  // Let the page settle (first charts, background loads) before timing: its
  // own work would count as the renderer's CPU.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 3000)));
  const idle0 = rendererCPU(browser.profile);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 2000)));
  const idlePerS = (rendererCPU(browser.profile) - idle0) / 2;
  const out = { ...info, load_average: os.loadavg().map((x) => Number(x.toFixed(2))), renderer_idle_cpu_ms_per_s: idlePerS };
  const ranges = { whole: [0, d], one_percent: [d * 0.5, d * 0.51] };
  const kinds = { with_series: { name: "session_in_flight_requests" }, requests_only: { ids: [] } };
  for (const [key, [from, to]] of Object.entries(ranges)) {
    const res = { range: [from, to] };
    for (const [kind, sel] of Object.entries(kinds)) {
      // The first call loads the shards; then runs calls, timed one by
      // one (wall), and the renderer's CPU time over all of them.
      const args = { from, to, ...sel };
      const first = await page.evaluate(async (args) => {
        const a = await traceExplorer.rangeStats(args);
        return { count: a.requests.count, rows: a.series.reduce((n, s) => n + s.samples + s.gaps, 0), bytes: JSON.stringify(a).length };
      }, args);
      const cpu0 = rendererCPU(browser.profile);
      const t0 = performance.now();
      const r = await page.evaluate(
        async ({ args, runs }) => {
          const wall = [];
          for (let k = 0; k < runs; k++) {
            const t = performance.now();
            await traceExplorer.rangeStats(args);
            wall.push(performance.now() - t);
          }
          wall.sort((a, b) => a - b);
          return { median: wall[Math.floor(runs / 2)], min: wall[0] };
        },
        { args, runs },
      );
      const elapsedS = (performance.now() - t0) / 1000;
      const cpu = (rendererCPU(browser.profile) - cpu0) / runs;
      // Less what the page spent when nobody asked (measured above; the
      // engine's optimizing compile runs in the background for a while).
      const lessIdle = Math.max(0, cpu - (idlePerS * elapsedS) / runs);
      res.requests_in_range = first.count;
      if (sel.name) res.series_rows = first.rows;
      res[kind] = { wall_median_ms: r.median, wall_min_ms: r.min, renderer_cpu_ms_per_call: Number(cpu.toFixed(2)), less_idle_ms_per_call: Number(lessIdle.toFixed(2)), answer_chars: first.bytes };
    }
    out[key] = res;
  }
  console.log(JSON.stringify(out, null, 2));
} finally {
  await browser.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
}
