// Start-up profile: opens a report in a fresh profile with Chromium's
// tracing on (the Chrome DevTools protocol's Tracing domain), waits for
// trace-explorer:ready, and prints where each thread's time went between
// navigation (or --from-mark) and ready: every thread's busy time, and its events by name
// by self time (an event less those nested in it), and with --js the
// JavaScript sampling profile's self and total time by function. Prints one JSON
// document; --trace FILE also writes the raw trace (chrome://tracing,
// Perfetto).
//
// With --api KIND it profiles API calls instead of the start-up: once the
// page is ready and its evidence given, it records --calls calls of KIND
// (the benchmark's: select-request, select-request-expand, select-range-full,
// get-lifecycle), each followed by the frame it causes (the call, then the
// next animation frame and a task after it, so style, layout and paint are
// in the window), and prints the same breakdown over those calls, with
// each call's own time (call_ms) and its time to the end of that frame
// (frame_ms).
//
//   node tools/browser/profile.mjs --report DIR [--http] [--top 25] [--trace FILE] [--js] [--from-mark dsight:first-paint] [--timeout-s 60]
//   node tools/browser/profile.mjs --report DIR --api select-request [--calls 20] [--js [--cpuprofile FILE]] [--top 25] [--trace FILE]

import fs from "node:fs";
import { launch, serve, fileURL } from "./harness.mjs";

const argv = process.argv.slice(2);
if (argv.includes("-h") || argv.includes("--help")) {
  console.log(fs.readFileSync(new URL(import.meta.url), "utf8").split("\n\n")[0].replace(/^\/\/ ?/gm, ""));
  process.exit(0);
}
const arg = (name, dflt) => {
  const k = argv.indexOf(`--${name}`);
  return k >= 0 ? argv[k + 1] : dflt;
};
const report = arg("report");
if (!report) throw new Error("--report DIR is required");
const top = Number(arg("top", 25));
const traceFile = arg("trace");
const cpuFile = arg("cpuprofile"); // with --js: the raw sampling profile (DevTools' .cpuprofile)
const timeoutMs = Number(arg("timeout-s", 60)) * 1000;
const js = argv.includes("--js"); // the sampling profiler slows the page by a third
const fromMark = arg("from-mark"); // count only what runs after this performance mark
const apiKind = arg("api");
const apiCalls = Number(arg("calls", 20));

const CATEGORIES = ["devtools.timeline", "v8", "v8.execute", "blink", "loading", "toplevel", "disabled-by-default-devtools.timeline", "disabled-by-default-v8.compile", "blink.user_timing"];

const server = argv.includes("--http") ? await serve(report) : null;
const b = await launch();
let events = [];
try {
  const page = await b.context.newPage();
  const cdp = await b.context.newCDPSession(page);
  cdp.on("Tracing.dataCollected", (m) => events.push(...m.value));
  const complete = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  const record = async () => {
    await cdp.send("Tracing.start", { transferMode: "ReportEvents", traceConfig: { includedCategories: CATEGORIES } });
    if (js) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
      await cdp.send("Profiler.start");
    }
  };
  if (!apiKind) await record();
  await page.addInitScript(() => {
    window.__dsightReady = new Promise((resolve) => window.addEventListener("trace-explorer:ready", () => resolve(performance.now()), { once: true }));
    window.__dsightEvidence = new Promise((resolve) => window.addEventListener("trace-explorer:evidence", resolve, { once: true }));
  });
  await page.goto(server ? server.url : fileURL(report));
  const readyAt = await page.evaluate((ms) => Promise.race([window.__dsightReady, new Promise((_, rej) => setTimeout(() => rej(new Error(`not ready: ${window.traceExplorerError}`)), ms))]), timeoutMs);
  let calls = null;
  let from = fromMark;
  let to = "dsight:ready";
  if (apiKind) {
    // Every evidence shard given first (or 60 s), unless the kind is about
    // the shards not yet given.
    await page.evaluate((ms) => Promise.race([window.__dsightEvidence, new Promise((r) => setTimeout(r, ms))]), timeoutMs);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 500)));
    await record();
    calls = await page.evaluate(apiScenario, { kind: apiKind, n: apiCalls });
    [from, to] = ["dsight:profile-calls", "dsight:profile-calls-end"];
  }
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, m.startTime])));
  const profile = js ? (await cdp.send("Profiler.stop")).profile : null;
  await cdp.send("Tracing.end");
  await complete;
  if (traceFile) fs.writeFileSync(traceFile, JSON.stringify({ traceEvents: events }));
  if (cpuFile && profile) fs.writeFileSync(cpuFile, JSON.stringify(profile));
  const a = at(events, marks, from, 0);
  const z = at(events, marks, to, Infinity);
  const round = (m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Math.round(v)]));
  console.log(JSON.stringify({ ready_ms: Math.round(readyAt), marks: round(marks), calls, threads: summarize(events, a, z), js_self_ms: profile && selfTimes(profile, a, z), js_total_ms: profile && selfTimes(profile, a, z, true) }, null, 1));
} finally {
  await b.close();
  await server?.close();
}

// apiScenario runs in the page: n calls of kind, each followed by the
// frame it causes, between the marks dsight:profile-calls and
// dsight:profile-calls-end; it answers each call's time and its time to
// the end of its frame (ms, sorted) and their p50 and p95.
async function apiScenario({ kind, n }) {
  const x = window.traceExplorer;
  const d = x.describe().meta.duration;
  const ids = x.queryRequests({ limit: 1000 }).items.map((r) => r.id);
  const traced = [];
  for (let k = 0; traced.length < n && k < 4 * n; k++) {
    const a = (((k * 31 + 7) * 7919) % 1000) / 1000 * d * 0.9;
    const hit = x.queryRequests({ from: a, to: a + d * 0.05, limit: 200 }).items.find((r) => r.span_count > 0 && !traced.includes(r.id));
    if (hit) traced.push(hit.id);
  }
  const kinds = {
    "select-request": (k) => x.selectRequest(ids[k % ids.length]),
    "select-request-expand": (k) => x.selectRequest(traced[k % traced.length], { expand: true, fit: true }),
    "select-range-full": () => x.selectRange(0, d),
    "get-lifecycle": (k) => x.getLifecycle(traced[k % traced.length]),
  };
  const call = kinds[kind];
  if (!call) throw new Error(`--api is one of ${Object.keys(kinds).join(", ")}`);
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  await frame();
  const own = [];
  const framed = [];
  performance.mark("dsight:profile-calls");
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    call(k);
    own.push(performance.now() - t);
    await frame();
    framed.push(performance.now() - t);
  }
  performance.mark("dsight:profile-calls-end");
  const sum = (xs) => {
    const s = [...xs].sort((p, q) => p - q);
    return { p50: +s[Math.floor(s.length / 2)].toFixed(1), p95: +s[Math.min(s.length - 1, Math.floor(s.length * 0.95))].toFixed(1), all: s.map((v) => +v.toFixed(1)) };
  };
  return { kind, call_ms: sum(own), frame_ms: sum(framed) };
}

// selfTimes sums the JavaScript sampling profile's self time by function
// (name, file, line), the biggest first.
// With total set it sums each function's total time instead (its own
// and that of every function it called).
function selfTimes(profile, from, to, total = false) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const nameOf = (n) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
  const self = new Map();
  let t = profile.startTime;
  profile.samples.forEach((id, k) => {
    t += profile.timeDeltas[k];
    if (t < from || t > to) return;
    const dt = profile.timeDeltas[k + 1] ?? 0;
    const names = new Set();
    for (let n = id; n !== undefined && (total || !names.size); n = parent.get(n)) names.add(nameOf(byId.get(n)));
    for (const name of names) self.set(name, (self.get(name) || 0) + dt);
  });
  return [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([n, us]) => `${n} ${Math.round(us / 1000)}`);
}

// at is the trace time (µs) of performance mark name (the navigation's
// start on the trace's clock plus the mark's time), or dflt when name is
// not given or the page set no such mark.
function at(evs, marks, name, dflt) {
  const nav = navigation(evs);
  if (!name || !nav || marks[name] === undefined) return dflt;
  return nav.ts + marks[name] * 1000;
}

// navigation is the trace's event for the report's navigation (the
// navigationStart naming a document URL: the first is the blank page's).
function navigation(evs) {
  return evs.find((e) => e.name === "navigationStart" && e.args?.data?.documentLoaderURL) || evs.find((e) => e.name === "ResourceSendRequest");
}

// summarize sums, per thread of the renderer that ran the page, its busy
// time (top-level events) and each event name's self time (its duration
// less that of the events nested in it), between the trace times from and
// to.
function summarize(evs, from, to) {
  const names = new Map(); // "pid:tid" → thread name
  for (const e of evs) if (e.ph === "M" && e.name === "thread_name") names.set(`${e.pid}:${e.tid}`, e.args.name);
  const nav = navigation(evs);
  const pid = nav ? nav.pid : null;
  // Complete events, B/E pairs folded into them, per thread.
  const perThread = new Map();
  const open = new Map();
  const push = (key, name, ts, dur) => {
    const a = Math.max(ts, from);
    const b = Math.min(ts + dur, to);
    if (b <= a) return;
    if (!perThread.has(key)) perThread.set(key, []);
    perThread.get(key).push({ name, ts: a, dur: b - a });
  };
  for (const e of evs) {
    if (pid !== null && e.pid !== pid) continue;
    const key = `${e.pid}:${e.tid}`;
    if (e.ph === "X") push(key, e.name, e.ts, e.dur || 0);
    else if (e.ph === "B") open.set(`${key}:${e.name}`, e.ts);
    else if (e.ph === "E") {
      const s = open.get(`${key}:${e.name}`);
      if (s !== undefined) push(key, e.name, s, e.ts - s);
    }
  }
  const out = [];
  for (const [key, list] of perThread) {
    list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const self = new Map();
    const stack = [];
    let busy = 0;
    for (const e of list) {
      while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
      const parent = stack.at(-1);
      if (parent) self.set(parent.name, (self.get(parent.name) || 0) - Math.min(e.dur, parent.ts + parent.dur - e.ts));
      else busy += e.dur;
      self.set(e.name, (self.get(e.name) || 0) + e.dur);
      stack.push(e);
    }
    out.push({
      thread: names.get(key) || key,
      busy_ms: Math.round(busy / 1000),
      self_ms: [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([n, d]) => `${n} ${Math.round(d / 1000)}`),
    });
  }
  return out.filter((t) => t.busy_ms > 5).sort((a, b) => b.busy_ms - a.busy_ms);
}
