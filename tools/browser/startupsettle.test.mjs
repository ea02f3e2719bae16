// The engine's collector is off from give("core") until the page has drawn
// its first render (wasm/collector.go): the page hands it back with
// dsightEngine.settle() once, after dsight:ready. On a traced report that
// is before the evidence shards no answer asked for are given to the
// engine (their buffers come and go, so the collector is wanted there):
// before ready the page only holds the evidence scripts' text.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { launch, open, fileURL } from "./harness.mjs";
import { buildReport } from "./fixture.mjs";

let plain;
let traced;
let browser;

before(async () => {
  plain = buildReport({ seed: 5, requests: 200, hostile: false, sources: "aiperf" });
  traced = buildReport({ seed: 5, requests: 200, hostile: false, sources: "aiperf,frontend,otel,workers" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  for (const fx of [plain, traced]) if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

// recordSettles wraps the engine's settle as the engine registers itself,
// recording when each call came.
function recordSettles() {
  window.__settles = [];
  let engine;
  Object.defineProperty(window, "dsightEngine", {
    configurable: true,
    get: () => engine,
    set: (e) => {
      const settle = e.settle;
      e.settle = (...a) => {
        window.__settles.push({ at: performance.now(), api: "traceExplorer" in window });
        return settle.apply(e, a);
      };
      engine = e;
    },
  });
}

const markAt = (page, name) => page.evaluate((n) => performance.getEntriesByName(n)[0]?.startTime ?? null, name);

test("an untraced report's engine settles once, after the page is ready", async () => {
  const { page, problems } = await open(browser.context, fileURL(plain.report), { init: recordSettles });
  assert.deepEqual(problems, []);
  await page.waitForFunction(() => window.__settles.length > 0, null, { timeout: 5000 });
  await page.waitForTimeout(200);
  const settles = await page.evaluate(() => window.__settles);
  const ready = await markAt(page, "dsight:ready");
  assert.equal(settles.length, 1, JSON.stringify(settles));
  assert.ok(settles[0].at >= ready && settles[0].api, `settled at ${settles[0].at} ms, ready at ${ready} ms`);
  assert.equal(await page.evaluate(() => window.traceExplorer.queryRequests({ limit: 1 }).items.length === 1), true);
  await page.close();
});

test("a traced report's engine settles once, after ready and before the rest of its evidence is given", async () => {
  const { page, problems } = await open(browser.context, fileURL(traced.report), { init: recordSettles });
  assert.deepEqual(problems, []);
  await page.waitForFunction(() => performance.getEntriesByName("dsight:evidence-give").length > 0, null, { timeout: 20000 });
  const settles = await page.evaluate(() => window.__settles);
  const ready = await markAt(page, "dsight:ready");
  const giving = await markAt(page, "dsight:evidence-give");
  assert.ok((await markAt(page, "dsight:evidence")) !== null, "no dsight:evidence mark: the fixture is not traced");
  assert.equal(settles.length, 1, JSON.stringify(settles));
  assert.ok(settles[0].at >= ready && settles[0].api && settles[0].at <= giving, `settled at ${settles[0].at} ms; ready ${ready}, the rest of the evidence given from ${giving}`);
  await page.close();
});
