// The demo report published into a bucket directory and served by the Go
// edge (cmd/edge) on a local workerd, opened in Debian's chromium through a
// short link: the page opens at the saved view, every shard loads once, a
// second visit is served from the browser's cache (immutable shards, a 304
// for index.html), traceExplorer answers equal the file:// answers, and the
// page's "Copy short link" mints a link that opens the same view.
// Skips, saying why, where workerd cannot run.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import zlib from "node:zlib";
import { launch, open, fileURL } from "./harness.mjs";
import { buildDemo, dsight, startEdge, tempDir, visit, workerdBinary } from "./edge.mjs";

const { bin, why } = workerdBinary();
if (!bin) console.log(`SKIP edge end-to-end: ${why}`);

let work;
let fx;
let edge;
let published;

before(async () => {
  if (!bin) return;
  work = tempDir();
  fx = buildDemo(work);
  published = dsight("publish", fx.report, "--to", `${work}/bucket`);
  edge = await startEdge(bin, `${work}/bucket`);
});

after(async () => {
  await edge?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// answers asks the page what the file:// page is asked too.
async function answers(page) {
  return page.evaluate(() => {
    const meta = traceExplorer.describe().meta;
    const d = meta.duration;
    const first = traceExplorer.queryRequests({ limit: 1 }).items[0].id;
    return {
      state: traceExplorer.getState(),
      meta,
      requests: traceExplorer.queryRequests({ from: d / 4, to: d / 2, limit: 40 }),
      request: traceExplorer.getRequest(first),
      sessions: traceExplorer.listSessions({ limit: 5 }),
    };
  });
}

test("a short link opens the published report at its view, from the edge as from file://", { skip: bin ? false : why, timeout: 240000 }, async () => {
  // The view to share, made on the file:// page.
  const browser = await launch();
  let saved, fromFile, fileChart;
  try {
    const { page, problems } = await open(browser.context, fileURL(fx.report));
    saved = await page.evaluate(() => {
      const id = traceExplorer.queryRequests({ offset: 3, limit: 1 }).items[0].id;
      traceExplorer.selectRequest(id, { fit: true });
      return traceExplorer.getState();
    });
    assert.equal(await page.evaluate(() => document.getElementById("copyShortLink").hidden), true, "Copy short link shown off the edge");
    await page.close();
    assert.deepEqual(problems, []);
    const fragment = `#view=${encodeURIComponent(JSON.stringify(saved))}`;
    const again = await visit(browser.context, `${fileURL(fx.report)}${fragment}`);
    fromFile = await answers(again.page);
    // A published report names its run by the directory's base name only:
    // the builder's absolute path stays in the local report.
    assert.ok(fromFile.meta.source_root.startsWith("/"), fromFile.meta.source_root);
    fromFile.meta.source_root = fromFile.meta.source_root.split("/").pop();
    fileChart = again.firstChart;
    await again.page.close();
  } finally {
    await browser.close();
  }
  const fragment = `#view=${encodeURIComponent(JSON.stringify(saved))}`;
  const link = dsight("link", fx.report, "--view", fragment, "--to", `${work}/bucket`, "--base-url", edge.url);
  assert.match(link.url, /\/v\/[0-9a-f]{12}$/);

  // A colleague with an empty cache opens the short link.
  const colleague = await launch();
  try {
    const first = await visit(colleague.context, link.url);
    const where = await first.page.evaluate(() => ({ path: location.pathname, hash: location.hash }));
    assert.deepEqual(where, { path: `/r/${published.report_id}/`, hash: fragment });
    const fromEdge = await answers(first.page);
    assert.deepEqual(fromEdge, fromFile);
    assert.deepEqual(fromEdge.state, saved);
    const r1 = first.responses();
    assert.deepEqual(r1.filter((r) => r.status >= 400), []);
    const shards = r1.filter((r) => r.url.includes("/detail/"));
    // At least the engine's, the core's and the evidence's scripts.
    const entry = JSON.parse(fs.readFileSync(`${fx.report}/manifest.json`, "utf8")).entry;
    const needed = new Set([entry.engine, entry.core, ...(entry.evidence?.shards ?? [])].flatMap((s) => s.parts.map((p) => p.path))).size;
    assert.ok(needed >= 2 && shards.length >= needed, `${shards.length} shard loads; the page needs at least ${needed} scripts`);
    const seen = new Map();
    for (const r of shards) seen.set(r.url, (seen.get(r.url) || 0) + 1);
    assert.deepEqual([...seen].filter(([, n]) => n > 1), [], "a shard loaded twice");
    assert.ok(r1.some((r) => r.status === 302 && r.url === link.url), "the short link did not redirect");
    assert.deepEqual(first.problems, []);
    await first.page.close();

    // The second visit: shards from the cache, index.html revalidated.
    const second = await visit(colleague.context, link.url);
    assert.deepEqual(await answers(second.page), fromFile);
    const r2 = second.responses();
    const index = r2.find((r) => r.url.endsWith(`/r/${published.report_id}/`));
    assert.ok(index && (index.wire === 304 || index.cached), `index.html on the second visit: ${JSON.stringify(index)}`);
    const again = r2.filter((r) => r.url.includes("/detail/"));
    assert.equal(again.length, shards.length);
    assert.deepEqual(again.filter((r) => !(r.cached || r.wire === 304)), [], "shards fetched again on the second visit");
    assert.deepEqual(second.problems, []);
    const bytes = (rs) => rs.reduce((n, r) => n + r.bytes, 0);
    console.log(
      `edge: first chart ${Math.round(first.firstChart)} ms via the edge vs ${Math.round(fileChart)} ms from file://; ` +
        `ready ${Math.round(first.readyAt)} ms; ${bytes(r1)} bytes on the first visit, ${bytes(r2)} on the second; ` +
        `${shards.length} shard scripts`,
    );

    // "Copy short link" on the edge mints a link to the current view.
    assert.equal(await second.page.evaluate(() => document.getElementById("copyShortLink").hidden), false);
    await Promise.all([second.page.waitForURL(/\/v\/\?report=/), second.page.click("#copyShortLink")]);
    const short = await second.page.inputValue("#shortLink");
    assert.match(short, new RegExp(`^${edge.url}/v/[0-9a-f]{12}$`));
    await second.page.close();
    const third = await visit(colleague.context, short);
    assert.deepEqual(await third.page.evaluate(() => traceExplorer.getState()), saved);
    assert.deepEqual(third.problems, []);
    await third.page.close();
  } finally {
    await colleague.close();
  }
});

// raw sends one request exactly as written (no path normalisation, no
// decompression) and resolves to {status, headers, body}.
function raw(base, method, target, headers = {}) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: target, headers, timeout: 60000 }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${target} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

test("the edge's HTTP rules hold through workerd", { skip: bin ? false : why, timeout: 240000 }, async () => {
  // The published core (its source_root redacted) as the bucket holds it.
  const manifest = JSON.parse(zlib.gunzipSync(fs.readFileSync(`${work}/bucket/reports/${published.report_id}/manifest.json.gz`)));
  const part = manifest.entry.core.parts[0];
  const onDisk = zlib.gunzipSync(fs.readFileSync(`${work}/bucket/${part.path}.gz`));
  const target = `${published.path}${part.path}`;

  const gz = await raw(edge.url, "GET", target, { "accept-encoding": "gzip" });
  assert.equal(gz.status, 200);
  assert.equal(gz.headers["content-encoding"], "gzip");
  assert.equal(gz.headers["cache-control"], "public, max-age=31536000, immutable");
  assert.deepEqual(zlib.gunzipSync(gz.body), onDisk, "the stored gzip was not passed through as is");
  assert.equal(Number(gz.headers["content-length"]), gz.body.length);

  const plain = await raw(edge.url, "GET", target, { "accept-encoding": "identity" });
  assert.equal(plain.headers["content-encoding"], undefined);
  assert.deepEqual(plain.body, onDisk);

  const notModified = await raw(edge.url, "GET", target, { "accept-encoding": "gzip", "if-none-match": gz.headers.etag });
  assert.equal(notModified.status, 304);
  assert.equal(notModified.body.length, 0);

  const suffix = await raw(edge.url, "GET", target, { range: "bytes=-10" });
  assert.equal(suffix.status, 206);
  assert.deepEqual(suffix.body, onDisk.subarray(onDisk.length - 10));
  assert.equal(suffix.headers["content-range"], `bytes ${onDisk.length - 10}-${onDisk.length - 1}/${onDisk.length}`);
  assert.equal((await raw(edge.url, "GET", target, { range: `bytes=${onDisk.length}-` })).status, 416);

  const head = await raw(edge.url, "HEAD", target, { "accept-encoding": "gzip" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.etag, gz.headers.etag);
  assert.equal(head.body.length, 0);

  assert.equal((await raw(edge.url, "POST", target)).status, 405);
  for (const bad of [`${published.path}../../detail/${part.id}.js`, `${published.path}%2e%2e/%2e%2e/links/`, `${published.path}detail/..%5c..%5cmanifest.json`, `/r/${published.report_id}0/`, `/detail/${part.id}.js.gz`, `/reports/${published.report_id}/index.html.gz`]) {
    const res = await raw(edge.url, "GET", bad);
    assert.equal(res.status, 404, bad);
    assert.equal(res.body.toString(), "not found\n", bad);
  }
});
