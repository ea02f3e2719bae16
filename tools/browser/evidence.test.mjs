// A traced report's API opens only once its synchronous contract holds:
// every evidence part's script has run and handed its payload over before
// window.traceExplorer exists, even when the last part arrives late.
// getLifecycle / getRequest asked in the very task that announces ready
// (before any shard is given in the background) answer exactly as the CLI
// does for requests whose evidence sits in the first chunks and in the
// last ones: the engine asks for the shards those answers need and the
// page decodes, checks and gives them within the call. Before ready the
// page gives the engine only shards an answer asked for, and draws no
// range statistics, slowest rows or metric charts; after it, the rest of
// the shards, each exactly once, and those.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { launch, open, fileURL } from "./harness.mjs";
import { buildReport, cli } from "./fixture.mjs";

let fx, browser, server, manifest, early, late;

before(async () => {
  // Enough requests that the evidence is several pack scripts (up to 4 MiB
  // each, report.EvidencePackBytes): the late one is one of them.
  fx = buildReport({ seed: 5, requests: 6000, hostile: false, sources: "aiperf,frontend,otel,workers" });
  manifest = JSON.parse(fs.readFileSync(path.join(fx.report, "manifest.json"), "utf8"));
  const tracedOf = (page) => page.items.filter((r) => r.span_count > 0).map((r) => r.id);
  const first = cli(fx.report, "requests", { limit: 1000 });
  early = tracedOf(first).slice(0, 3);
  late = tracedOf(cli(fx.report, "requests", { offset: Math.max(0, first.total - 1000), limit: 1000 })).slice(-3);
  browser = await launch();
  // Over http the last evidence script waits until every other evidence
  // script's parts have been delivered (at most 20 s): it arrives last and
  // late.
  const lateScript = manifest.entry.evidence.parts.at(-1).path;
  const others = new Set(manifest.entry.evidence.parts.filter((p) => p.path !== lateScript).map((p) => p.id));
  let released;
  const othersIn = new Promise((r) => (released = r));
  await browser.context.exposeFunction("__evidenceDelivered", (protocol, id) => {
    if (protocol === "http:" && others.delete(id) && others.size === 0) released();
  });
  server = await serveWithLatePart(fx.report, lateScript, () => Promise.race([othersIn, new Promise((r) => setTimeout(r, 20000))]));
});

// serveWithLatePart serves dir on loopback like the harness's server, but
// answers the request for late (a report-relative path) only once the
// promise gate() gives resolves.
async function serveWithLatePart(dir, late, gate) {
  const s = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "");
    const file = path.join(dir, path.normalize(rel || "index.html"));
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) return res.writeHead(404).end("not found");
    const send = () => {
      res.writeHead(200, { "content-type": file.endsWith(".html") ? "text/html; charset=utf-8" : "text/javascript; charset=utf-8" });
      fs.createReadStream(file).pipe(res);
    };
    if (rel === late) gate().then(send);
    else send();
  });
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${s.address().port}/index.html`, close: () => new Promise((r) => s.close(r)) };
}

after(async () => {
  await browser?.close();
  await server?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

// Records, for every payload script delivered, whether the API was already
// open; every shard handed to the engine (give), with whether an answer
// was being made (the engine asking for it) and whether the API was open;
// and, in the task that announces ready, the lifecycle and request of
// each of ids.
function watchDeliveries(ids) {
  window.__deliveries = [];
  window.__gives = [];
  window.__ops = [];
  let engine;
  let answering = 0;
  Object.defineProperty(window, "dsightEngine", {
    configurable: true,
    get: () => engine,
    set: (api) => {
      const give = api.give;
      api.give = (name, bytes, ...rest) => {
        window.__gives.push({ name, bytes: bytes.length, inAnswer: answering > 0, apiOpen: "traceExplorer" in window });
        return give(name, bytes, ...rest);
      };
      const handle = api.handle;
      api.handle = (...args) => {
        window.__ops.push({ op: JSON.parse(args[0]).op, apiOpen: "traceExplorer" in window });
        answering++;
        try {
          return handle(...args);
        } finally {
          answering--;
        }
      };
      engine = api;
    },
  });
  let inner;
  Object.defineProperty(window, "__dsightShard", {
    configurable: true,
    get: () => (id, text) => {
      window.__deliveries.push({ id, apiOpen: "traceExplorer" in window });
      window.__evidenceDelivered(location.protocol, id);
      return inner(id, text);
    },
    set: (f) => (inner = f),
  });
  window.addEventListener(
    "trace-explorer:ready",
    () => {
      const evidenceGives = () => window.__gives.filter((g) => g.name === "evidence").length;
      const before = evidenceGives();
      const answers = ids.map((id) => ({ id, lifecycle: traceExplorer.getLifecycle(id), request: traceExplorer.getRequest(id) }));
      window.__atReady = { before, after: evidenceGives(), answers };
    },
    { once: true },
  );
}

for (const mode of ["file", "http"]) {
  test(`${mode}: the API opens after the last evidence part, and answers at ready equal the CLI's early and late`, async () => {
    const ev = manifest.entry.evidence;
    assert.ok(ev && ev.parts.length >= 2, `the fixture's evidence should span several parts (it has ${ev ? ev.parts.length : 0})`);
    assert.ok(ev.shards.length >= 2, `the fixture's evidence should be several shards (it has ${ev.shards.length})`);
    const scripts = new Set(ev.parts.map((p) => p.path)).size;
    assert.ok(scripts >= 2, `the fixture's evidence should be several scripts, one of them late (it has ${scripts})`);
    assert.deepEqual(ev.shards.flatMap((s) => s.parts.map((p) => p.id)), ev.parts.map((p) => p.id));
    const ids = [...early, ...late];
    const init = { content: `(${watchDeliveries})(${JSON.stringify(ids)})` };
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(fx.report) : server.url, { init });
    try {
      const deliveries = await page.evaluate(() => window.__deliveries);
      for (const p of ev.parts) {
        const d = deliveries.find((x) => x.id === p.id);
        assert.ok(d, `evidence part ${p.path} was never delivered`);
        assert.equal(d.apiOpen, false, `window.traceExplorer existed before evidence part ${p.path} was delivered`);
      }
      if (mode === "http") assert.equal(deliveries.filter((d) => ev.parts.some((p) => p.id === d.id)).at(-1).id, ev.parts.at(-1).id, "the late part arrived last");
      // When ready is announced the engine holds only the shards answers
      // asked for (the page's first render asks for one request's): the
      // rest are given afterwards.
      const atReady = await page.evaluate(() => ({ before: window.__atReady.before, answers: window.__atReady.answers }));
      assert.ok(atReady.before < ev.shards.length, `every evidence shard was given by the time ready was announced (${atReady.before} of ${ev.shards.length})`);
      for (const { id, lifecycle, request } of atReady.answers) {
        assert.deepEqual(lifecycle, cli(fx.report, "lifecycle", { id }), `getLifecycle(${id}) at ready`);
        const want = cli(fx.report, "request", { id });
        assert.equal(request.evidence_pending, undefined, `getRequest(${id}) is marked pending at ready`);
        assert.deepEqual(request.spans, want.spans, `getRequest(${id}).spans at ready`);
        assert.deepEqual(request.worker_bindings, want.worker_bindings, `getRequest(${id}).worker_bindings at ready`);
        assert.deepEqual(request.lifecycle, want.lifecycle, `getRequest(${id}).lifecycle at ready`);
      }
      // Then every other shard is given, once each, of its bytes; before
      // the API opened, only shards an answer asked for were.
      await page.evaluate(() => performance.getEntriesByName("dsight:evidence-given").length || new Promise((r) => window.addEventListener("trace-explorer:evidence", r, { once: true })));
      const gives = await page.evaluate(() => window.__gives.filter((g) => g.name === "evidence"));
      assert.deepEqual(gives.map((g) => g.bytes).sort((a, b) => a - b), ev.shards.map((s) => s.decoded_bytes).sort((a, b) => a - b), "one give per evidence shard, of its bytes");
      assert.deepEqual(gives.filter((g) => !g.apiOpen && !g.inAnswer), [], "a shard was given before ready without an answer asking for it");
      for (const id of ids) {
        const got = await page.evaluate((id) => ({ lifecycle: traceExplorer.getLifecycle(id), request: traceExplorer.getRequest(id) }), id);
        assert.deepEqual(got.lifecycle, cli(fx.report, "lifecycle", { id }), `getLifecycle(${id}) once every shard is given`);
        assert.deepEqual(got.request.spans, cli(fx.report, "request", { id }).spans, `getRequest(${id}).spans once every shard is given`);
      }
      // The slowest rows, the range statistics and the metric charts
      // wait for ready (app.js holdExtras); then they are drawn.
      const EXTRAS = ["stats", "metric_plan", "metrics", "page_metrics"];
      await page.evaluate(() => traceExplorer.whenMetricsReady && traceExplorer.whenMetricsReady());
      await page.waitForFunction(() => window.__ops.some((o) => o.op === "stats"), null, { timeout: 10000 });
      const ops = await page.evaluate(() => window.__ops);
      assert.deepEqual(ops.filter((o) => !o.apiOpen && EXTRAS.includes(o.op)), [], "extras were asked before ready");
      assert.ok(ops.some((o) => o.apiOpen && o.op === "stats"), "the range statistics were never drawn");
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

// Records, after ready, each SHA-256 check crypto.subtle makes: the
// length of what it hashes, and its start and end in the order they
// happened.
function watchChecks() {
  const digest = crypto.subtle.digest.bind(crypto.subtle);
  let ready = false;
  window.__checks = [];
  window.addEventListener("trace-explorer:ready", () => (ready = true), { once: true });
  crypto.subtle.digest = (algo, data) => {
    if (!ready) return digest(algo, data);
    const bytes = data.byteLength;
    window.__checks.push({ bytes, start: true });
    return digest(algo, data).finally(() => window.__checks.push({ bytes, start: false }));
  };
}

// After ready the shards no answer asked for are checked several at a
// time, off the page's thread, rather than one check awaited after
// another; never more than the page holds decoded for it (VERIFY_AHEAD).
test("file: after ready the remaining evidence shards are checked several at once, and given once each", async () => {
  const ev = manifest.entry.evidence;
  assert.ok(ev.shards.length >= 6, `the fixture's evidence should be at least six shards (it has ${ev.shards.length})`);
  const { page, problems } = await open(browser.context, fileURL(fx.report), { init: { content: `(${watchDeliveries})([]);(${watchChecks})()` } });
  try {
    await page.evaluate(() => performance.getEntriesByName("dsight:evidence-given").length || new Promise((r) => window.addEventListener("trace-explorer:evidence", r, { once: true })));
    const { events, gives } = await page.evaluate(() => ({ events: window.__checks, gives: window.__gives.filter((g) => g.name === "evidence") }));
    assert.deepEqual(gives.map((g) => g.bytes).sort((a, b) => a - b), ev.shards.map((s) => s.decoded_bytes).sort((a, b) => a - b), "one give per evidence shard");
    // The evidence checks among every check after ready (metric payloads
    // are checked too): those of an evidence shard's length.
    const sizes = new Set(ev.shards.map((s) => s.decoded_bytes));
    let open = 0;
    let most = 0;
    let made = 0;
    for (const e of events.filter((e) => sizes.has(e.bytes))) {
      open += e.start ? 1 : -1;
      made += e.start ? 1 : 0;
      most = Math.max(most, open);
    }
    const givenAfter = gives.filter((g) => g.apiOpen && !g.inAnswer).length;
    assert.equal(made, givenAfter, "each shard given after ready was checked once by crypto.subtle");
    assert.ok(most >= Math.min(3, givenAfter), `at most ${most} evidence checks were in flight at once, of ${givenAfter} shards`);
    assert.ok(most <= 8, `${most} checks in flight at once: more shards held decoded than the page allows`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
