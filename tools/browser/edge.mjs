// The local edge for browser tests and the load test: the demo report
// published into a bucket directory, served by cmd/edge (make edge) on a
// plain workerd from npm, which reads the directory through a disk service
// (writable for the short links the page mints). Everything listens on
// 127.0.0.1 only.

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { BIN, ROOT } from "./fixture.mjs";

export const EDGE_DIR = path.join(ROOT, "out", "edge");

// workerdBinary is the runtime's native binary inside its npm package, or
// null with the reason it cannot run on this machine.
export function workerdBinary() {
  const bin = path.join(ROOT, "node_modules", "@cloudflare", `workerd-${process.platform}-${process.arch === "x64" ? "64" : process.arch}`, "bin", "workerd");
  if (!fs.existsSync(bin)) return { bin: null, why: `workerd has no binary for ${process.platform}-${process.arch} in node_modules (npm install installs it where one exists)` };
  try {
    execFileSync(bin, ["--version"], { stdio: "ignore", timeout: 20000 });
  } catch (err) {
    return { bin: null, why: `workerd does not run on this machine: ${err.message}` };
  }
  // A missing build is a failure, not a reason to skip: make test builds it.
  if (!fs.existsSync(path.join(EDGE_DIR, "app.wasm"))) throw new Error(`${EDGE_DIR}/app.wasm is missing: run make edge`);
  return { bin, why: "" };
}

// buildDemo writes the demo run (make demo's) and builds its report.
export function buildDemo(work, { seed = 1 } = {}) {
  const run = path.join(work, "run");
  const report = path.join(work, "report");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", String(seed), "-scale", "1", "-hostile", "-sources", "aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(BIN, ["build", run, "-o", report, "--iteration-timezone", "UTC"], { stdio: ["ignore", "ignore", "inherit"] });
  return { run, report };
}

export function dsight(...args) {
  return JSON.parse(execFileSync(BIN, args, { encoding: "utf8" }));
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

// startEdge serves bucket on 127.0.0.1 and resolves once it answers.
export async function startEdge(bin, bucket) {
  const port = await freePort();
  const tmpl = fs.readFileSync(path.join(EDGE_DIR, "workerd.capnp.tmpl"), "utf8");
  // The config sits beside the worker's files: embeds are relative to it.
  const config = path.join(EDGE_DIR, `test-${process.pid}-${port}.capnp`);
  fs.writeFileSync(config, tmpl.replaceAll("@BUCKET@", path.resolve(bucket)));
  const log = [];
  const child = spawn(bin, ["serve", config, "--socket-addr", `http=127.0.0.1:${port}`], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.on("data", (d) => log.push(String(d)));
  child.stderr.on("data", (d) => log.push(String(d)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    fs.rmSync(config, { force: true });
  };
  const deadline = Date.now() + 30000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`workerd exited: ${log.join("")}`);
    }
    try {
      const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 404) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`workerd did not answer within 30 s: ${log.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, log, stop };
}

export function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), "dsight-edge-"));
}

// visit opens url in a new page of context with the browser cache on (the
// harness's request routing would turn it off) and records every response
// through the DevTools protocol: status, whether the cache served it, and
// the bytes that crossed the wire.
export async function visit(context, url, { timeout = 60000 } = {}) {
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const byId = new Map();
  const entry = (id) => {
    if (!byId.has(id)) byId.set(id, { url: "", status: 0, cached: false, bytes: 0 });
    return byId.get(id);
  };
  cdp.on("Network.requestWillBeSent", (e) => {
    const u = new URL(e.request.url);
    const local = ["file:", "data:", "blob:"].includes(u.protocol) || (u.protocol === "http:" && u.hostname === "127.0.0.1");
    if (!local) problems.push(`request leaving the machine: ${u.href}`);
    // A redirect reuses the request id: keep the hop as its own entry.
    if (e.redirectResponse) byId.set(`${e.requestId}:${byId.size}`, { url: e.redirectResponse.url, status: e.redirectResponse.status, cached: !!e.redirectResponse.fromDiskCache, bytes: e.redirectResponse.encodedDataLength || 0 });
    entry(e.requestId).url = e.request.url;
  });
  cdp.on("Network.requestServedFromCache", (e) => (entry(e.requestId).cached = true));
  cdp.on("Network.responseReceived", (e) => {
    const x = entry(e.requestId);
    x.url = e.response.url;
    x.status = e.response.status;
    if (e.response.fromDiskCache || e.response.fromPrefetchCache) x.cached = true;
  });
  // The status on the wire: a revalidated entry is reported as 200 with the
  // cached body, but its wire status is 304.
  cdp.on("Network.responseReceivedExtraInfo", (e) => (entry(e.requestId).wire = e.statusCode));
  cdp.on("Network.loadingFinished", (e) => (entry(e.requestId).bytes = e.encodedDataLength));
  await page.addInitScript(() => {
    window.__dsightReady = new Promise((resolve) => window.addEventListener("trace-explorer:ready", () => resolve(performance.now()), { once: true }));
  });
  await page.goto(url);
  const readyAt = await page.evaluate((ms) => Promise.race([window.__dsightReady, new Promise((_, rej) => setTimeout(() => rej(new Error(`not ready: ${window.traceExplorerError}`)), ms))]), timeout);
  const firstChart = await page.evaluate(async () => {
    await traceExplorer.whenMetricsReady();
    const m = performance.getEntriesByName("dsight:first-chart")[0];
    return m ? m.startTime : null;
  });
  const responses = () => [...byId.values()].filter((r) => r.url.startsWith("http"));
  return { page, problems, readyAt, firstChart, responses };
}
