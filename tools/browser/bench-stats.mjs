// Range statistics benchmark: opens a report from file:// in Chromium and
// times traceExplorer.rangeStats over the whole run and over 1 % of it,
// for the requests with one session family's series (shards loaded by a
// first call, so the numbers are the engine's answer, not the loading),
// and the page's synchronous requests-only answer that the percentile rows
// and the statistics panel draw from. Prints one JSON document.
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
  const out = await page.evaluate(async (runs) => {
    const d = traceExplorer.describe().meta.duration;
    const ranges = { whole: [0, d], one_percent: [d * 0.5, d * 0.51] };
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const res = { duration_s: d, requests: traceExplorer.queryRequests({ limit: 0 }).total };
    for (const [key, [from, to]] of Object.entries(ranges)) {
      await traceExplorer.rangeStats({ from, to, name: "session_in_flight_requests" }); // loads the shards
      const withSeries = [];
      const requestsOnly = [];
      let answer;
      for (let k = 0; k < runs; k++) {
        let t = performance.now();
        answer = await traceExplorer.rangeStats({ from, to, name: "session_in_flight_requests" });
        withSeries.push(performance.now() - t);
        t = performance.now();
        await traceExplorer.rangeStats({ from, to, ids: [] });
        requestsOnly.push(performance.now() - t);
      }
      res[key] = {
        range: [from, to],
        requests_in_range: answer.requests.count,
        series_rows: answer.series.reduce((n, s) => n + s.samples + s.gaps, 0),
        with_series_ms: median(withSeries),
        requests_only_ms: median(requestsOnly),
      };
    }
    return res;
  }, runs);
  console.log(JSON.stringify(out, null, 2));
} finally {
  await browser.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
}
