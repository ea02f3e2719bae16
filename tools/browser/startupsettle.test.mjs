// The engine's collector is off from give("core") until the page has drawn
// its first render (wasm/collector.go): the page hands it back with
// dsightEngine.settle() once, after dsight:ready. On a traced report that
// is once the evidence shards no answer asked for are given to the engine
// too: given against the goal of the heap without them, they would have
// the runtime start a cycle inside an API call made meanwhile. settle
// collects first, so the heap's goal is then twice what is live, and the
// calls that follow run no cycle of the runtime's own.

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

test("a traced report's engine settles once, after its evidence is given, and its calls then run no collection", async () => {
  const { page, problems } = await open(browser.context, fileURL(traced.report), { init: recordSettles });
  assert.deepEqual(problems, []);
  await page.waitForFunction(() => window.__settles.length > 0, null, { timeout: 20000 });
  const settles = await page.evaluate(() => window.__settles);
  const ready = await markAt(page, "dsight:ready");
  const given = await markAt(page, "dsight:evidence-given");
  assert.ok((await markAt(page, "dsight:evidence")) !== null, "no dsight:evidence mark: the fixture is not traced");
  assert.equal(settles.length, 1, JSON.stringify(settles));
  assert.ok(ready !== null && given !== null && settles[0].at >= given && settles[0].api, `settled at ${settles[0].at} ms; ready ${ready}, the evidence given at ${given}`);
  // Settled, the goal is about twice the live heap: a run of calls that
  // allocates less than that runs no cycle inside them. Counted by the
  // engine's collector (memory(): [cycles, heap, goal]).
  const got = await page.evaluate(() => {
    const e = window.dsightEngine;
    const x = window.traceExplorer;
    const [, heap, goal] = e.memory();
    const ids = x.queryRequests({ limit: 200 }).items.filter((r) => r.span_count > 0).map((r) => r.id);
    const d = x.describe().meta.duration;
    let inCalls = 0;
    for (let k = 0; k < 60; k++) {
      const before = e.memory()[0];
      if (k % 3 === 0) x.selectRange(0, d);
      else if (k % 3 === 1) x.selectRequest(ids[k % ids.length], { expand: true, fit: true });
      else x.getLifecycle(ids[(k * 7) % ids.length]);
      inCalls += e.memory()[0] - before;
    }
    return { heap, goal, inCalls, traced: ids.length };
  });
  assert.ok(got.traced > 0, "no traced request");
  assert.ok(got.goal >= 1.5 * got.heap, `goal ${got.goal} bytes for a heap of ${got.heap} after settle`);
  assert.equal(got.inCalls, 0, "collections ran inside calls");
  await page.close();
});

// The page collects in its idle time (engine.js collectWhenIdle): once the
// heap has used half its headroom since the last cycle, a call's idle
// look runs one there, not inside the next call; below that it runs none.
test("the engine collects in the page's idle time once half its headroom is used", async () => {
  const { page, problems } = await open(browser.context, fileURL(plain.report));
  assert.deepEqual(problems, []);
  await page.waitForTimeout(300); // settled
  const got = await page.evaluate(async () => {
    const e = window.dsightEngine;
    const x = window.traceExplorer;
    const idle = () => new Promise((r) => setTimeout(r, 1500));
    await idle();
    const [c0] = e.memory();
    x.describe(); // a call: an idle look, with nothing to collect
    await idle();
    const [c1, heap, goal] = e.memory();
    // Calls until the heap is past half its headroom (each answer's text
    // is garbage to the engine), none of them collecting.
    let inCalls = 0;
    for (let k = 0; k < 100000 && e.memory()[1] < heap + (goal - heap) * 0.6; k++) {
      const before = e.memory()[0];
      x.queryRequests({ limit: 1000 });
      inCalls += e.memory()[0] - before;
    }
    const past = e.memory()[1] >= heap + (goal - heap) * 0.6;
    await idle();
    const [c2] = e.memory();
    return { quiet: c1 - c0, inCalls, past, idle: c2 - c1 };
  });
  assert.equal(got.quiet, 0, "collected in idle time with nothing allocated");
  assert.ok(got.past, "the calls never used the headroom");
  assert.equal(got.inCalls, 0, "collections ran inside calls");
  assert.equal(got.idle, 1, "no collection in the idle time after the heap used half its headroom");
  await page.close();
});
