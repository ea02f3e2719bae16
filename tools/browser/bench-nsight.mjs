// Browser benchmark of the Nsight section on a generated profile set
// (10,000,000 NVTX ranges by default, split over the two worker exports):
// the build (wall time, peak RSS, report bytes), then in Chromium from
// file://: the density overview drawn, zooms to exact ranges over random
// windows (the engine's answer and the answer with its frame, first with
// the shards loading, then again with them held), queryNsys pages at
// random windows, and the page's memory. Prints one JSON document.
//
//   node tools/browser/bench-nsight.mjs [--ranges 10000000] [--zooms 50] [--calls 50] [--repeats 200] [--report DIR] [--bin PATH]
//
// --report reuses a built report (its build is not measured).

import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, open, fileURL } from "./harness.mjs";
import { ROOT, BIN } from "./fixture.mjs";

const flag = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ranges = Number(flag("ranges") ?? 10_000_000);
const zooms = Number(flag("zooms") ?? 50);
const calls = Number(flag("calls") ?? 50);
const repeats = Number(flag("repeats") ?? 200);
const bin = flag("bin") ? path.resolve(flag("bin")) : BIN;

const out = { ranges, load: os.loadavg().map((v) => Number(v.toFixed(2))) };
let report = flag("report") && path.resolve(flag("report"));
let work = null;
if (!report) {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-bench-nsight-"));
  const run = path.join(work, "run");
  report = path.join(work, "report");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "7", "-requests", "400", "-sources", "aiperf,frontend,otel,workers,nsight", "-nsight-ranges", String(Math.ceil(ranges / 2))], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const timed = spawnSync("/usr/bin/time", ["-f", "%e %M", bin, "build", run, "-o", report], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  if (timed.status !== 0) throw new Error(`build failed: ${timed.stderr}`);
  const [wall, rssKB] = timed.stderr.trim().split(/\s+/).slice(-2).map(Number);
  out.build = { wall_s: wall, peak_rss_mb: Math.round(rssKB / 1024) };
}
const files = fs.readdirSync(report, { recursive: true }).map((f) => path.join(report, f)).filter((f) => fs.statSync(f).isFile());
out.report_bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor(s.length * p))].toFixed(2));
};
const stats = (xs) => ({ p50: q(xs, 0.5), p95: q(xs, 0.95), max: q(xs, 1) });

// rendererRSS sums the resident memory of the renderers this process
// started (descendants of it with --type=renderer): other browsers on the
// machine are not counted.
function rendererRSS() {
  const parent = new Map();
  const procs = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  for (const pid of procs) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const mine = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  for (const pid of procs) {
    try {
      if (!mine(Number(pid)) || !fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer")) continue;
      const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) kb += Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return Math.round(kb / 1024);
}

// pageBench runs in the page: the overview, the zooms, the repeats and
// the queryNsys pages (only the cold zooms when prefetched).
const pageBench = async ({ zooms, calls, repeats, prefetched }) => {
      const x = window.traceExplorer;
      const d = x.describe().meta.duration;
      const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const last = () => performance.getEntriesByName("dsight:nsight-render").at(-1)?.detail;
      const p = x.listProfiles().filter((q) => q.worker !== "frontend").sort((a, b) => b.event_count - a.event_count)[0];
      let t = performance.now();
      await x.inspectNsys({ profile: p.id, from: 0, to: d });
      await frame();
      const overview = { ms: performance.now() - t, mode: document.querySelector(`.nsight-canvas[data-profile="${p.id}"]`).dataset.mode, ...last() };
      let prefetch = null;
      if (prefetched) {
        // The idle prefetch around the overview, to its end.
        t = performance.now();
        while (x.detailDataStatus().prefetch.running) await new Promise((r) => setTimeout(r, 50));
        prefetch = { ms: performance.now() - t, ...x.detailDataStatus().prefetch };
      }
      // Windows of 6,000 ranges at the profile's mean rate: under one
      // 8,192-row chunk, so they overlap at most two and draw exact.
      const [a0, a1] = p.imported_range;
      const width = (6_000 / p.event_count) * (a1 - a0);
      let seed = 12345;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const windows = Array.from({ length: zooms }, () => {
        const a = a0 + rnd() * (a1 - a0 - width);
        return [a, a + width];
      });
      const canvas = () => document.querySelector(`.nsight-canvas[data-profile="${p.id}"]`);
      // Where a zoom's time goes: the synchronous selectRange (every view
      // of the page redraws), the engine's answer (performance.now around
      // the wasm calls, nsightdata.js), the canvas drawing, and the rest
      // (shard loads, waiting for a core, the frame itself).
      const zoom = async () => {
        const answer = [];
        const withFrame = [];
        const select = [];
        const draw = [];
        const load = [];
        const parts = []; // loader.js newLoadTiming of each zoom
        let exact = 0;
        let drawn = 0;
        let rects = 0;
        for (const [a, b] of windows) {
          x.selectRange(0, d); // from the overview each time
          await x.whenDetailsReady();
          t = performance.now();
          x.selectRange(a, b);
          select.push(performance.now() - t);
          await x.whenDetailsReady();
          await frame();
          withFrame.push(performance.now() - t);
          const m = last();
          answer.push(m.answer_ms);
          draw.push(m.draw_ms);
          load.push(m.view_ms - m.answer_ms);
          parts.push(m.load);
          if (m.modes[0] === "exact") exact++;
          drawn += Number(canvas().dataset.drawn || 0);
          rects += Number(canvas().dataset.rects || 0);
        }
        return { answer, withFrame, select, draw, load, parts, exact, meanRows: Math.round(drawn / windows.length), meanRects: Math.round(rects / windows.length) };
      };
      const cold = await zoom();
      if (prefetched) return { window_s: width, cold, prefetch };
      const warm = await zoom();
      // The engine's cost per call with its shards held, repeated on one
      // window so that the least of many calls approaches a quiet machine.
      const repeat = [];
      for (let k = 0; k < repeats; k++) {
        x.selectRange(...windows[k % 5]);
        await x.whenDetailsReady();
        repeat.push(last().answer_ms);
      }
      const nsys = [];
      for (let k = 0; k < calls; k++) {
        const a = rnd() * d * 0.9;
        t = performance.now();
        await x.queryNsys({ profile: p.id, from: a, to: a + d * 0.05, offset: Math.floor(rnd() * 1000), limit: 100 });
        nsys.push(performance.now() - t);
      }
      return { profile: { id: p.id, worker: p.worker, ranges: p.event_count }, window_s: width, overview, cold, warm, repeat, nsys, status: x.detailDataStatus(), heap: performance.memory ? performance.memory.usedJSHeapSize : null };
    };

const b = await launch();
try {
  // The first page never prefetches (?nsight-prefetch-bytes=0): its cold
  // zooms load every chunk's scripts. The second (below) lets the idle
  // prefetch run first, then zooms to the same windows, never viewed there.
  const { page, problems } = await open(b.context, `${fileURL(report)}?nsight-prefetch-bytes=0`);
  const cdp = await page.context().newCDPSession(page);
  const rssAtReady = rendererRSS();
  const got = await page.evaluate(pageBench, { zooms, calls, repeats, prefetched: false });
  const metrics = Object.fromEntries((await cdp.send("Performance.getMetrics").catch(() => ({ metrics: [] }))).metrics.map((m) => [m.name, m.value]));
  if (problems.length) throw new Error(problems.join("\n"));
  out.profile = got.profile;
  out.density_overview = { drawn_ms: Number(got.overview.ms.toFixed(1)), mode: got.overview.mode, answer_ms: Number((got.overview.answer_ms ?? 0).toFixed(2)) };
  out.zoom_window_s = Number(got.window_s.toFixed(4));
  // shard_load_parts: where the loads' time went, per zoom summed over
  // its shards and parts (script: waiting for the scripts; decode: base
  // 32768; verify: SHA-256; inflate; give: the engine's decoding).
  const zoomStats = (z) => {
    const parts = {};
    for (const k of ["script_ms", "decode_ms", "verify_ms", "inflate_ms", "give_ms"]) parts[k] = stats(z.parts.map((m) => m[k]));
    parts.shards_loaded = z.parts.reduce((n, m) => n + m.shards, 0);
    parts.parts_prefetched = z.parts.reduce((n, m) => n + m.held, 0);
    return { exact: `${z.exact}/${zooms}`, mean_rows: z.meanRows, mean_rects: z.meanRects, answer_ms: stats(z.answer), with_frame_ms: stats(z.withFrame), select_range_ms: stats(z.select), shard_load_ms: stats(z.load), shard_load_parts: parts, draw_ms: stats(z.draw), with_frame_each_ms: z.withFrame.map((v) => Math.round(v)), draw_each_ms: z.draw.map((v) => Math.round(v)) };
  };
  out.zoom_cold = { prefetch: "off (?nsight-prefetch-bytes=0): every chunk's scripts load at zoom time", ...zoomStats(got.cold) };
  out.zoom_warm = zoomStats(got.warm);
  out.engine_repeat_ms = { calls: repeats, min: q(got.repeat, 0), ...stats(got.repeat) };
  out.queryNsys_ms = stats(got.nsys);
  out.memory = {
    js_heap_mb: Math.round((metrics.JSHeapUsedSize ?? got.heap ?? 0) / 2 ** 20),
    renderer_rss_at_ready_mb: rssAtReady,
    renderer_rss_mb: rendererRSS(),
    detail_cache: got.status,
  };
  await page.screenshot({ path: path.join(ROOT, "tools", "browser", "out", "bench-nsight.png"), fullPage: true });
  await page.close();

  // Cold zooms after the idle prefetch has run, in a fresh page.
  const second = await open(b.context, fileURL(report));
  const pre = await second.page.evaluate(pageBench, { zooms, calls, repeats, prefetched: true });
  if (second.problems.length) throw new Error(second.problems.join("\n"));
  out.prefetch = { idle_ms: Number(pre.prefetch.ms.toFixed(1)), ...pre.prefetch, ms: undefined };
  out.zoom_cold_after_prefetch = { prefetch: "on: the idle prefetch ran to its end first; the same windows, never viewed in that page", ...zoomStats(pre.cold) };
  out.load_after = os.loadavg().map((v) => Number(v.toFixed(2)));
} finally {
  await b.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
}
console.log(JSON.stringify(out, null, 2));
