// Browser benchmark: build a generated 100,000-request run with the real CLI
// and measure the build (wall time, MB/s, peak RSS), the report (wasm and
// shard sizes) and the page from file:// (navigation → trace-explorer:ready
// in fresh profiles, and API call times). Prints one JSON document.
//
//   node tools/browser/bench.mjs [--requests 100000] [--loads 3] [--calls 30] [--sources aiperf,frontend,otel,workers] [--run DIR] [--bin PATH] [--report DIR] [--http] [--at-ready] [--timeout-s 20]
//
// With server sources the report is traced, and the lifecycle calls are timed
// too, on requests spread over the whole run (so most land in a chunk of
// server evidence the engine has not decoded yet). --run reuses a generated
// run directory instead of generating one; --bin builds with another dsight
// binary (an earlier build, to compare against). --report opens a report
// already built (no generation, no build: the build figures are null);
// --http serves it from a loopback server instead of file://. Each load
// records first paint (the dsight:first-paint mark, or ready when the page
// sets none) and ready. --at-ready also times, in the very task that
// announces ready, getLifecycle of 12 traced requests spread over the run
// (lifecycle_at_ready_ms: the evidence shards no answer asked for are not
// in the engine yet then). api_gc_cycles counts the engine's collections
// that ran inside each kind's timed calls, when the engine counts them.

import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, open, fileURL, serve } from "./harness.mjs";
import { ROOT, BIN } from "./fixture.mjs";

if (process.argv.includes("-h") || process.argv.includes("--help")) {
  // The comment at the top of this file is the usage.
  const text = fs.readFileSync(new URL(import.meta.url), "utf8");
  const usage = text.slice(0, text.indexOf("\nimport ")).replace(/^\/\/ ?/gm, "");
  process.stdout.write(usage.trim() + "\n");
  process.exit(0);
}

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const requests = arg("requests", 100000);
const loads = arg("loads", 3);
const calls = arg("calls", 30);
const sourcesAt = process.argv.indexOf("--sources");
const sources = sourcesAt > 0 ? process.argv[sourcesAt + 1] : "aiperf";

const binAt = process.argv.indexOf("--bin");
const bin = binAt > 0 ? path.resolve(process.argv[binAt + 1]) : BIN;
const runAt = process.argv.indexOf("--run");
const reportAt = process.argv.indexOf("--report");
const http = process.argv.includes("--http");
const timeoutMs = arg("timeout-s", 20) * 1000; // how long a load may take to be ready
const atReady = process.argv.includes("--at-ready");

// lifecycleAtReady runs in the page: on trace-explorer:ready it times
// getLifecycle of traced requests spread over the run, within that task.
function lifecycleAtReady() {
  window.addEventListener(
    "trace-explorer:ready",
    () => {
      const x = window.traceExplorer;
      const d = x.describe().meta.duration;
      const ids = [];
      for (let k = 0; k < 12; k++) {
        const a = (k / 12) * d * 0.95;
        const hit = x.queryRequests({ from: a, to: a + d * 0.02, limit: 200 }).items.find((r) => r.span_count > 0);
        if (hit) ids.push(hit.id);
      }
      window.__lifecycleAtReady = ids.map((id) => {
        const t = performance.now();
        x.getLifecycle(id);
        return +(performance.now() - t).toFixed(1);
      });
    },
    { once: true },
  );
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-bench-"));
const run = runAt > 0 ? path.resolve(process.argv[runAt + 1]) : path.join(work, "run");
const report = reportAt > 0 ? path.resolve(process.argv[reportAt + 1]) : path.join(work, "report");
if (runAt < 0 && reportAt < 0) {
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "3", "-requests", String(requests), "-sources", sources], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
}
const inputBytes = reportAt > 0 ? null : fs.readdirSync(path.join(run, "logs"), { recursive: true }).map((f) => path.join(run, "logs", f)).filter((f) => fs.statSync(f).isFile()).reduce((n, f) => n + fs.statSync(f).size, 0);

// /usr/bin/time reports the build's wall time and peak RSS on stderr.
let wall = null;
let rssKB = null;
if (reportAt < 0) {
  const timed = spawnSync("/usr/bin/time", ["-f", "%e %M", bin, "build", run, "-o", report], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  if (timed.status !== 0) throw new Error(`build failed: ${timed.stderr}`);
  [wall, rssKB] = timed.stderr.trim().split(/\s+/).slice(-2).map(Number);
}
const server = http ? await serve(report) : null;
const reportURL = server ? server.url : fileURL(report);
const manifest = JSON.parse(fs.readFileSync(path.join(report, "manifest.json"), "utf8"));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

const readies = [];
let api = null;
for (let i = 0; i < loads; i++) {
  const b = await launch(); // a fresh profile each time: no code cache
  try {
    const { page, problems, readyAt } = await open(b.context, reportURL, { timeoutMs, init: atReady ? lifecycleAtReady : undefined });
    if (problems.length) throw new Error(problems.join("\n"));
    const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, Math.round(m.startTime)])));
    // The evidence load's timing (loader.js newLoadTiming, summed over the
    // evidence shards; main.js measures it).
    const evidence = await page.evaluate(() => {
      const m = performance.getEntriesByName("dsight:evidence-load")[0];
      return m ? { wall_ms: Math.round(m.duration), ...Object.fromEntries(Object.entries(m.detail).map(([k, v]) => [k, Math.round(v)])) } : null;
    });
    // The core's load, as the evidence's (main.js dsight:core-load).
    const core = await page.evaluate(() => {
      const m = performance.getEntriesByName("dsight:core-load")[0];
      return m ? { wall_ms: Math.round(m.duration), ...Object.fromEntries(Object.entries(m.detail).map(([k, v]) => [k, Math.round(v)])) } : null;
    });
    // The navigation's own steps before any script of ours runs: the HTML
    // received, parsed up to the page's script, first painted.
    const navigation = await page.evaluate(() => {
      const n = performance.getEntriesByType("navigation")[0];
      const paint = performance.getEntriesByName("first-paint")[0];
      return n ? { response_end: Math.round(n.responseEnd), first_paint: paint ? Math.round(paint.startTime) : null, dom_interactive: Math.round(n.domInteractive) } : null;
    });
    const lifecycleAt = atReady ? await page.evaluate(() => window.__lifecycleAtReady ?? null) : null;
    readies.push({ readyMs: Math.round(readyAt), firstPaintMs: marks["dsight:first-paint"] ?? Math.round(readyAt), marks, evidence, core, navigation, lifecycleAt });
    if (i === loads - 1) {
      api = await page.evaluate((calls) => {
        const x = window.traceExplorer;
        const d = x.describe().meta.duration;
        // time times calls of f; an f that answers a number times itself
        // (to leave out what it does first).
        // An engine that counts its collections (wasm memory()) has the
        // cycles that ran inside each kind's calls counted too.
        const e = window.dsightEngine;
        const cycles = () => (typeof e.memory === "function" ? e.memory()[0] : NaN);
        const time = (f) => {
          const out = [];
          out.cycles = 0;
          for (let k = 0; k < calls; k++) {
            const c = cycles();
            const t = performance.now();
            const own = f(k);
            out.push(typeof own === "number" ? own : performance.now() - t);
            out.cycles += cycles() - c;
          }
          return out;
        };
        const rnd = (k) => {
          const a = ((k * 7919) % 1000) / 1000 * d * 0.9;
          return [a, a + d * 0.05];
        };
        const items = x.queryRequests({ limit: 1000 }).items;
        const ids = items.map((r) => r.id);
        // Traced requests spread over the whole run, picked before timing.
        const traced = [];
        for (let k = 0; k < calls; k++) {
          const [a, b] = rnd(k * 31 + 7);
          const hit = x.queryRequests({ from: a, to: b, limit: 200 }).items.find((r) => r.span_count > 0 && !traced.includes(r.id));
          if (hit) traced.push(hit.id);
        }
        const lifecycle = traced.length
          ? {
              "selectRequest(expand, fit) + lifecycle render": time((k) => x.selectRequest(traced[k % traced.length], { expand: true, fit: true })),
              getLifecycle: time((k) => x.getLifecycle(traced[k % traced.length])),
            }
          : {};
        const answers = {
          ...lifecycle,
          "queryRequests(all, limit 1000)": time(() => x.queryRequests({ from: 0, to: d, limit: 1000 })),
          "queryRequests(all, limit 50)": time(() => x.queryRequests({ from: 0, to: d })),
          "queryRequests(5% window, limit 50)": time((k) => { const [a, b] = rnd(k); x.queryRequests({ from: a, to: b }); }),
          "selectRange + render (5% window)": time((k) => { const [a, b] = rnd(k); x.selectRange(a, b); }),
          "selectRange + render (full run)": time(() => x.selectRange(0, d)),
          // The full run each time from another window (chosen untimed):
          // the render of a range the page has not drawn just before.
          "selectRange + render (full run, from a 5% window)": time((k) => {
            const [a, b] = rnd(k + 500);
            x.selectRange(a, b);
            const t = performance.now();
            x.selectRange(0, d);
            return performance.now() - t;
          }),
          "selectRequest + render": time((k) => x.selectRequest(ids[k % ids.length])),
          "getRequest": time((k) => x.getRequest(ids[k % ids.length])),
          "listSessions(limit 100)": time(() => x.listSessions()),
          "describe": time(() => x.describe()),
        };
        return Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, { ms: [...v], cycles: v.cycles }]));
      }, calls);
    }
    // A traced report gives its evidence shards no answer asked for after
    // ready (web/src/evidenceload.js): when that ended, and its timing
    // summed over those shards (main.js dsight:evidence-give).
    readies.at(-1).evidenceGive = await page.evaluate(async (ms) => {
      if (!JSON.parse(document.getElementById("dsight-boot").textContent).entry.evidence) return null;
      const given = () => performance.getEntriesByName("dsight:evidence-give")[0];
      const t0 = performance.now();
      while (!given() && performance.now() - t0 < ms) await new Promise((r) => setTimeout(r, 50));
      const m = given();
      return m ? { end_ms: Math.round(m.startTime + m.duration), wall_ms: Math.round(m.duration), ...Object.fromEntries(Object.entries(m.detail).map(([k, v]) => [k, Math.round(v)])) } : null;
    }, timeoutMs);
    await page.close();
  } finally {
    await b.close();
  }
}

// steps turns a load's marks into the time each start-up step took, in
// the order the page reached them.
const steps = (marks) => {
  const sorted = Object.entries(marks).sort((a, b) => a[1] - b[1]);
  return Object.fromEntries(sorted.map(([name, at], k) => [name.replace(/^dsight:/, ""), at - (k ? sorted[k - 1][1] : 0)]));
};
// Each kind's calls in the order made (calls), so a slow first call tells
// from a slow one later.
const summarize = (xs) => ({ p50: +median(xs).toFixed(2), p95: +p95(xs).toFixed(2), max: +Math.max(...xs).toFixed(2), calls: xs.map((x) => +x.toFixed(1)) });
const out = {
  requests: manifest.summary.counts?.requests ?? requests,
  input_bytes: inputBytes,
  build: wall === null ? null : { wall_s: wall, mb_per_s: +(inputBytes / 1e6 / wall).toFixed(1), peak_rss_mb: +(rssKB / 1024).toFixed(1) },
  served: http ? "http" : "file",
  report: {
    engine_wasm_bytes: manifest.entry.engine.decoded_bytes,
    engine_gzip_bytes: manifest.entry.engine.bytes,
    core_shard_bytes: manifest.entry.core.decoded_bytes,
    core_gzip_bytes: manifest.entry.core.bytes,
    total_bytes: manifest.files.reduce((n, f) => n + f.bytes, 0),
  },
  first_paint_ms: readies.map((r) => r.firstPaintMs),
  ready_ms: readies.map((r) => r.readyMs),
  ready_marks_last: readies.at(-1).marks,
  // Each load's start-up split: the time from one mark to the next (ms).
  startup_steps: readies.map((r) => steps(r.marks)),
  evidence_load: readies.map((r) => r.evidence),
  // The shards given after ready, when their giving ended (ms from the
  // navigation) and what it took.
  evidence_give: readies.map((r) => r.evidenceGive),
  lifecycle_at_ready_ms: atReady ? readies.map((r) => r.lifecycleAt) : undefined,
  core_load: readies.map((r) => r.core),
  navigation_ms: readies.map((r) => r.navigation),
  api_ms: Object.fromEntries(Object.entries(api).map(([k, v]) => [k, summarize(v.ms)])),
  // The engine's collections that ran inside each kind's calls (null: an
  // engine that does not count them).
  api_gc_cycles: Object.fromEntries(Object.entries(api).map(([k, v]) => [k, Number.isNaN(v.cycles) ? null : v.cycles])),
  cpus: os.cpus().length,
  load_average: os.loadavg().map((x) => +x.toFixed(2)),
};
console.log(JSON.stringify(out, null, 2));
if (server) await server.close();
fs.rmSync(work, { recursive: true, force: true });
