// A traced report's API opens only once its synchronous contract holds:
// every evidence shard (each part of the server evidence) has been handed
// to the engine, one give per shard as it arrives, before
// window.traceExplorer exists, even when the last part arrives late, and
// getLifecycle / getRequest then answer exactly as the CLI does for
// requests whose evidence sits in the first chunks and in the last ones.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { launch, open, fileURL } from "./harness.mjs";
import { buildReport, cli } from "./fixture.mjs";

let fx, browser, server, manifest, early, late;

before(async () => {
  fx = buildReport({ seed: 5, requests: 1500, hostile: false, sources: "aiperf,frontend,otel,workers" });
  manifest = JSON.parse(fs.readFileSync(path.join(fx.report, "manifest.json"), "utf8"));
  const tracedOf = (page) => page.items.filter((r) => r.span_count > 0).map((r) => r.id);
  const first = cli(fx.report, "requests", { limit: 1000 });
  early = tracedOf(first).slice(0, 3);
  late = tracedOf(cli(fx.report, "requests", { offset: Math.max(0, first.total - 1000), limit: 1000 })).slice(-3);
  browser = await launch();
  // The page tells the test each time it hands the engine an evidence
  // shard; over http the late part waits for the first one given over
  // http (at most 20 s).
  let given;
  const firstGive = new Promise((r) => (given = r));
  await browser.context.exposeFunction("__evidenceGiven", (protocol) => protocol === "http:" && given());
  server = await serveWithLatePart(fx.report, manifest.entry.evidence.parts.at(-1).path, () => Promise.race([firstGive, new Promise((r) => setTimeout(r, 20000))]));
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
// open, and every shard handed to the engine (give), in order with the
// deliveries.
function watchDeliveries() {
  window.__deliveries = [];
  window.__gives = [];
  let engine;
  Object.defineProperty(window, "dsightEngine", {
    configurable: true,
    get: () => engine,
    set: (api) => {
      const give = api.give;
      api.give = (name, bytes, ...rest) => {
        window.__gives.push({ name, bytes: bytes.length, afterDeliveries: window.__deliveries.length });
        if (name === "evidence") window.__evidenceGiven(location.protocol);
        return give(name, bytes, ...rest);
      };
      engine = api;
    },
  });
  let inner;
  Object.defineProperty(window, "__dsightShard", {
    configurable: true,
    get: () => (id, text) => {
      window.__deliveries.push({ id, apiOpen: "traceExplorer" in window });
      return inner(id, text);
    },
    set: (f) => (inner = f),
  });
}

for (const mode of ["file", "http"]) {
  test(`${mode}: the API opens after the last evidence part, and answers equal the CLI's early and late`, async () => {
    const ev = manifest.entry.evidence;
    assert.ok(ev && ev.parts.length >= 2, `the fixture's evidence should span several parts (it has ${ev ? ev.parts.length : 0})`);
    // Over http the last evidence part arrives late: only once the engine
    // has taken another evidence shard (the old single shard never did).
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(fx.report) : server.url, { init: watchDeliveries });
    try {
      const deliveries = await page.evaluate(() => window.__deliveries);
      for (const p of ev.parts) {
        const d = deliveries.find((x) => x.id === p.id);
        assert.ok(d, `evidence part ${p.path} was never delivered`);
        assert.equal(d.apiOpen, false, `window.traceExplorer existed before evidence part ${p.path} was delivered`);
      }
      // The evidence is several independent shards, each handed to the
      // engine as it arrives: over http the engine has taken every other
      // shard before the late part is delivered.
      assert.ok(ev.shards.length >= 2, `the fixture's evidence should be several shards (it has ${ev.shards.length})`);
      assert.deepEqual(ev.shards.flatMap((s) => s.parts.map((p) => p.id)), ev.parts.map((p) => p.id));
      const gives = await page.evaluate(() => window.__gives.filter((g) => g.name === "evidence"));
      assert.deepEqual(gives.map((g) => g.bytes).sort((a, b) => a - b), ev.shards.map((s) => s.decoded_bytes).sort((a, b) => a - b), "one give per evidence shard, of its bytes");
      if (mode === "http") {
        const lateAt = deliveries.findIndex((x) => x.id === ev.parts.at(-1).id);
        assert.ok(gives.filter((g) => g.afterDeliveries <= lateAt).length >= ev.shards.length - 1, `the engine took the other evidence shards before the late part arrived: ${JSON.stringify({ gives, lateAt })}`);
      }
      for (const id of [...early, ...late]) {
        const got = await page.evaluate((id) => ({ lifecycle: traceExplorer.getLifecycle(id), request: traceExplorer.getRequest(id) }), id);
        assert.deepEqual(got.lifecycle, cli(fx.report, "lifecycle", { id }), `getLifecycle(${id})`);
        const want = cli(fx.report, "request", { id });
        assert.equal(got.request.evidence_pending, undefined, `getRequest(${id}) is marked pending after ready`);
        assert.deepEqual(got.request.spans, want.spans, `getRequest(${id}).spans`);
        assert.deepEqual(got.request.worker_bindings, want.worker_bindings, `getRequest(${id}).worker_bindings`);
        assert.deepEqual(got.request.lifecycle, want.lifecycle, `getRequest(${id}).lifecycle`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
