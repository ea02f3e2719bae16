// Start-up profile: opens a report in a fresh profile with Chromium's
// tracing on (the Chrome DevTools protocol's Tracing domain), waits for
// trace-explorer:ready, and prints where each thread's time went between
// navigation (or --from-mark) and ready: every thread's busy time, and its events by name
// by self time (an event less those nested in it), and with --js the
// JavaScript sampling profile's self time by function. Prints one JSON
// document; --trace FILE also writes the raw trace (chrome://tracing,
// Perfetto).
//
//   node tools/browser/profile.mjs --report DIR [--http] [--top 25] [--trace FILE] [--js] [--from-mark dsight:first-paint] [--timeout-s 60]

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
const timeoutMs = Number(arg("timeout-s", 60)) * 1000;
const js = argv.includes("--js"); // the sampling profiler slows the page by a third
const fromMark = arg("from-mark"); // count only what runs after this performance mark

const CATEGORIES = ["devtools.timeline", "v8", "v8.execute", "blink", "loading", "toplevel", "disabled-by-default-devtools.timeline", "disabled-by-default-v8.compile", "blink.user_timing"];

const server = argv.includes("--http") ? await serve(report) : null;
const b = await launch();
let events = [];
try {
  const page = await b.context.newPage();
  const cdp = await b.context.newCDPSession(page);
  cdp.on("Tracing.dataCollected", (m) => events.push(...m.value));
  const complete = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
  await cdp.send("Tracing.start", { transferMode: "ReportEvents", traceConfig: { includedCategories: CATEGORIES } });
  if (js) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
    await cdp.send("Profiler.start");
  }
  await page.addInitScript(() => {
    window.__dsightReady = new Promise((resolve) => window.addEventListener("trace-explorer:ready", () => resolve(performance.now()), { once: true }));
  });
  await page.goto(server ? server.url : fileURL(report));
  const readyAt = await page.evaluate((ms) => Promise.race([window.__dsightReady, new Promise((_, rej) => setTimeout(() => rej(new Error(`not ready: ${window.traceExplorerError}`)), ms))]), timeoutMs);
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, Math.round(m.startTime)])));
  const profile = js ? (await cdp.send("Profiler.stop")).profile : null;
  await cdp.send("Tracing.end");
  await complete;
  if (traceFile) fs.writeFileSync(traceFile, JSON.stringify({ traceEvents: events }));
  console.log(JSON.stringify({ ready_ms: Math.round(readyAt), marks, threads: summarize(events, at(events, marks, fromMark, 0), at(events, marks, "dsight:ready", Infinity)), js_self_ms: profile && selfTimes(profile, at(events, marks, fromMark, 0), at(events, marks, "dsight:ready", Infinity)) }, null, 1));
} finally {
  await b.close();
  await server?.close();
}

// selfTimes sums the JavaScript sampling profile's self time by function
// (name, file, line), the biggest first.
function selfTimes(profile, from, to) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let t = profile.startTime;
  profile.samples.forEach((id, k) => {
    t += profile.timeDeltas[k];
    if (t < from || t > to) return;
    const f = byId.get(id).callFrame;
    const name = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) || 0) + (profile.timeDeltas[k + 1] ?? 0));
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
