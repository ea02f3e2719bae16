// A report is a file people receive from others. In Debian's chromium, from
// file:// and from a loopback HTTP server: a payload carrying another
// payload under its name is refused with "content hash mismatch" naming the
// file (with crypto.subtle and with the engine's SHA-256 when the browser
// has none), and the page's policy blocks an injected inline handler, an
// injected inline script and a foreign script while the report still loads.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { spawnSync } from "node:child_process";
import { buildReport, cli, BIN } from "./fixture.mjs";

let fx;
let browser;
const servers = [];
const copies = {};

function copy(name, edit) {
  const dir = path.join(fx.work, name);
  fs.cpSync(fx.report, dir, { recursive: true });
  edit(dir);
  copies[name] = dir;
}

function manifest(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
}

before(async () => {
  fx = buildReport({ seed: 11, requests: 60, hostile: true });
  const m = manifest(fx.report);
  const core = m.entry.core.parts[0];
  const other = m.entry.engine.parts[0];
  copy("swapped", (dir) => {
    // Another payload under the core part's name and id.
    // A payload script is UTF-16LE behind a byte order mark (format 4).
    const raw = fs.readFileSync(path.join(dir, other.path));
    const enc = raw[0] === 0xff && raw[1] === 0xfe ? "utf16le" : "utf8";
    const script = raw.toString(enc).replace(other.id, core.id);
    fs.writeFileSync(path.join(dir, core.path), Buffer.from(script, enc));
  });
  copy("damaged", (dir) => {
    // The core part's payload cut short (a damaged copy): the error must
    // name the file.
    copies.damagedPath = core.path;
    const file = path.join(dir, core.path);
    const text = fs.readFileSync(file, "utf8");
    const b64 = text.slice(text.indexOf('","') + 3, text.lastIndexOf('"'));
    const cut = Buffer.from(b64, "base64").subarray(0, 40);
    fs.writeFileSync(file, `__dsightShard("${core.id}","${cut.toString("base64")}");\n`);
  });
  // The first evidence part's payload with one unit changed (a damaged
  // copy whose script still hands every part it holds over): the page
  // checks an evidence shard when an answer first needs it, or after
  // ready, so the error comes then, naming the file.
  const ev = m.entry.evidence;
  copy("damagedEvidence", (dir) => {
    copies.damagedEvidencePart = ev.parts[0];
    const file = path.join(dir, ev.parts[0].path);
    const script = fs.readFileSync(file).subarray(2).toString("utf16le");
    const at = script.indexOf("/*", script.indexOf(ev.parts[0].id)) + 10;
    const unit = script.charCodeAt(at) === 0x3000 ? "\u3001" : "\u3000";
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(script.slice(0, at) + unit + script.slice(at + 1), "utf16le")]));
  });
  // One metric summary's payload with one unit changed inside its pack
  // script (report format 8): the page and the CLI refuse that summary
  // naming the pack's file, while a summary sharing the pack still answers.
  const fallback = cli(fx.report, "default_metric", { internal: true });
  const family = cli(fx.report, "metric_families").items.filter((f) => f.series_count > 0 && f.name !== fallback.name).at(-1);
  const items = cli(fx.report, "metrics", { name: family.name, limit: 1000 }).items;
  const packed = items[0].shard.parts[0];
  const others = cli(fx.report, "metrics", { limit: 1000 }).items.filter((s) => s.shard.parts[0].path === packed.path && s.name !== family.name);
  copies.damagedMetricInfo = { family: family.name, part: packed, neighbour: others[0] };
  copy("damagedMetric", (dir) => {
    const file = path.join(dir, packed.path);
    const script = fs.readFileSync(file).subarray(2).toString("utf16le");
    const at = script.indexOf("/*", script.indexOf(packed.id)) + 10;
    const unit = script.charCodeAt(at) === 0x3000 ? "\u3001" : "\u3000";
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(script.slice(0, at) + unit + script.slice(at + 1), "utf16le")]));
  });
  copy("injected", (dir) => {
    fs.writeFileSync(path.join(dir, "foreign.js"), "window.__pwned = (window.__pwned || []).concat('foreign script');\n");
    fs.writeFileSync(path.join(fx.work, "outside.js"), "window.__pwned = (window.__pwned || []).concat('outside script');\n");
    const inject = [
      `<img src="x" onerror="window.__pwned = (window.__pwned || []).concat('inline handler')">`,
      `<script>window.__pwned = (window.__pwned || []).concat('inline script');</script>`,
      `<script src="foreign.js"></script>`,
      `<script src="../outside.js"></script>`,
    ].join("");
    const file = path.join(dir, "index.html");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("<body>", "<body>" + inject));
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  for (const s of servers) await s.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

async function urlOf(mode, dir) {
  if (mode === "file") return fileURL(dir);
  const s = await serve(dir);
  servers.push(s);
  return s.url;
}

const noSubtle = () => Object.defineProperty(window.crypto, "subtle", { value: undefined, configurable: true });

// failure opens a page expected never to become ready and returns its error text.
async function failure(url, init) {
  const page = await browser.context.newPage();
  try {
    if (init) await page.addInitScript(init);
    await page.goto(url);
    await page.waitForFunction(() => window.traceExplorerError !== undefined, null, { timeout: 20000 });
    return { text: await page.evaluate(() => document.getElementById("error").textContent), ready: await page.evaluate(() => window.traceExplorer !== undefined) };
  } finally {
    await page.close();
  }
}

for (const mode of ["file", "http"]) {
  for (const [how, init] of [["crypto.subtle", undefined], ["engine sha256", noSubtle]]) {
    test(`${mode}, ${how}: the untouched report loads`, async () => {
      const { page, problems } = await open(browser.context, await urlOf(mode, fx.report), { init });
      try {
        assert.deepEqual(problems, []);
        if (init) assert.equal(await page.evaluate(() => window.crypto.subtle), undefined);
      } finally {
        await page.close();
      }
    });

    test(`${mode}, ${how}: another payload under a part's name is a content hash mismatch naming the file`, async () => {
      const core = manifest(copies.swapped).entry.core.parts[0];
      const { text, ready } = await failure(await urlOf(mode, copies.swapped), init);
      assert.equal(ready, false);
      assert.match(text, /content hash mismatch/);
      assert.ok(text.includes(core.path), text);
    });
  }

  test(`${mode}: a damaged payload is refused naming its file`, async () => {
    const { text, ready } = await failure(await urlOf(mode, copies.damaged));
    assert.equal(ready, false);
    assert.ok(text.includes(copies.damagedPath), text);
  });

  test(`${mode}: a damaged metric pack is refused naming its file, and its neighbours still answer`, async () => {
    const { family, part, neighbour } = copies.damagedMetricInfo;
    assert.ok(part.pack, "the metric summaries are packed");
    assert.ok(neighbour, "another family's summary shares the damaged pack");
    const page = await browser.context.newPage();
    try {
      await page.goto(await urlOf(mode, copies.damagedMetric));
      await page.waitForFunction(() => window.traceExplorer?.ready === true, null, { timeout: 20000 });
      const err = await page.evaluate((name) => traceExplorer.queryMetrics({ name }).then(() => "answered", (e) => String(e.message || e)), family);
      assert.match(err, /content hash mismatch/);
      assert.ok(err.includes(part.path), err);
      // The neighbour's own payload in the same script is intact.
      const ok = await page.evaluate((n) => traceExplorer.queryMetrics({ name: n.name }), neighbour);
      assert.ok(ok.some((s) => s.id === neighbour.id), "the neighbour answers");
    } finally {
      await page.close();
    }
    if (mode === "file") {
      // The CLI names the pack's file too, and answers the neighbour.
      const r = spawnSync(BIN, ["query", copies.damagedMetric, "metrics", "--name", family], { encoding: "utf8" });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /content hash mismatch/);
      assert.ok(r.stderr.includes(part.path.split("/").pop()), r.stderr);
      assert.ok(cli(copies.damagedMetric, "metrics", { name: neighbour.name, limit: 1000 }).items.some((s) => s.id === neighbour.id));
    }
  });

  test(`${mode}: a damaged evidence payload is refused naming its file, and no answer is made from it`, async () => {
    const damaged = copies.damagedEvidencePart;
    const page = await browser.context.newPage();
    try {
      await page.goto(await urlOf(mode, copies.damagedEvidence));
      await page.waitForFunction((p) => !document.getElementById("error").hidden && document.getElementById("error").textContent.includes(p), damaged.path, { timeout: 20000 });
      assert.match(await page.evaluate(() => document.getElementById("error").textContent), /content hash mismatch/);
      // The default request's evidence is in the damaged shard (the run's
      // one): the page still opens, and its inspector names the file.
      const opened = await page.evaluate(() => ({
        ready: performance.getEntriesByName("dsight:ready").length,
        inspector: document.querySelector("#inspectorBody .request-error")?.textContent ?? "",
        selected: window.traceExplorer.getState().request,
      }));
      assert.equal(opened.ready, 1, "the page never announced ready");
      assert.ok(opened.selected !== null && opened.inspector.includes(damaged.path) && /content hash mismatch/.test(opened.inspector), JSON.stringify(opened));
      // Every traced request answers as the CLI does, or fails naming the
      // damaged file: never an answer made from the damaged shard.
      const ids = cli(fx.report, "requests", { limit: 1000 }).items.filter((r) => r.span_count > 0).map((r) => r.id);
      const got = await page.evaluate((ids) => ids.map((id) => {
        try {
          return { id, spans: window.traceExplorer.getRequest(id).spans };
        } catch (err) {
          return { id, error: err.message };
        }
      }), ids);
      const failed = got.filter((g) => g.error);
      assert.ok(failed.length > 0, "no request's evidence was in the damaged shard");
      for (const g of failed) assert.ok(g.error.includes(damaged.path) && /content hash mismatch/.test(g.error), g.error);
      for (const g of got.filter((g) => !g.error)) assert.deepEqual(g.spans, cli(fx.report, "request", { id: g.id }).spans, g.id);
    } finally {
      await page.close();
    }
  });

  test(`${mode}: injected inline handler, inline script and foreign scripts are blocked; the report loads`, async () => {
    const { page, problems } = await open(browser.context, await urlOf(mode, copies.injected));
    try {
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      assert.equal(await page.evaluate(() => typeof window.traceExplorer.describe), "function");
      const other = problems.filter((p) => !/Content Security Policy/.test(p) && !/Failed to load resource/.test(p));
      assert.deepEqual(other, []);
      assert.ok(problems.some((p) => /Content Security Policy/.test(p)), "the blocked scripts were reported");
    } finally {
      await page.close();
    }
  });
}
