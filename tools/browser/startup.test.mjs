// The page's start-up path is marked step by step (docs/measurements.md,
// issue 17), so a slow open can be split without a profiler: the marks are
// present on an AIPerf-only report, in the order the page reaches them,
// and the core's parts are asked for only once the engine's bytes are in
// (its compilation runs while they load).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { launch, open, fileURL } from "./harness.mjs";
import { buildReport } from "./fixture.mjs";

let fx;
let browser;

before(async () => {
  fx = buildReport({ seed: 5, requests: 200, hostile: false, sources: "aiperf" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (fx) fs.rmSync(fx.work, { recursive: true, force: true });
});

// The engine's marks come from wasm/main.go (dsight:core-*), the others
// from web/src/main.js and loader.js.
const ORDER = ["boot", "wasm-bytes", "wasm-instantiated", "go-started", "core-copied", "core-decoded", "core-viewed", "core-indexed", "core", "chrome", "ready"];

test("the start-up steps are marked in order", async () => {
  const { page, problems } = await open(browser.context, fileURL(fx.report));
  assert.deepEqual(problems, []);
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name.replace(/^dsight:/, ""), m.startTime])));
  for (const name of [...ORDER, "core-bytes", "engine"]) assert.ok(name in marks, `no dsight:${name} mark (marks: ${Object.keys(marks).join(", ")})`);
  for (let k = 1; k < ORDER.length; k++) assert.ok(marks[ORDER[k - 1]] <= marks[ORDER[k]], `dsight:${ORDER[k - 1]} after dsight:${ORDER[k]}`);
  assert.ok(marks["core-bytes"] <= marks["core-copied"] && marks.engine <= marks["core-copied"]);
  await page.close();
});

// The page asks for a part by adding its script: the init script records
// when each script element is added (file:// pages keep no resource timing).
function recordScripts() {
  window.__scriptsAdded = [];
  new MutationObserver((changes) => {
    for (const c of changes) for (const n of c.addedNodes) if (n.tagName === "SCRIPT" && n.src) window.__scriptsAdded.push([n.src, performance.now()]);
  }).observe(document, { childList: true, subtree: true });
}

test("the core's parts load after the engine's bytes", async () => {
  const { page } = await open(browser.context, fileURL(fx.report), { init: recordScripts });
  const manifest = JSON.parse(fs.readFileSync(`${fx.report}/manifest.json`, "utf8"));
  const got = await page.evaluate((paths) => {
    const bytes = performance.getEntriesByName("dsight:wasm-bytes")[0].startTime;
    const starts = window.__scriptsAdded.filter(([src]) => paths.some((p) => src.endsWith(p))).map(([, at]) => at);
    return { bytes, starts };
  }, manifest.entry.core.parts.map((p) => p.path));
  assert.equal(got.starts.length, manifest.entry.core.parts.length);
  for (const s of got.starts) assert.ok(s >= got.bytes, `a core part was asked for at ${s} ms, before the engine's bytes were in (${got.bytes} ms)`);
  await page.close();
});

// dsight:script is the page's script starting, before any module of it is
// evaluated: the wait before dsight:boot splits at it into the browser's
// share and the bundle's own.
test("the page's script start is marked before boot", async () => {
  const { page } = await open(browser.context, fileURL(fx.report));
  const got = await page.evaluate(() => {
    const at = (name) => performance.getEntriesByName(name)[0]?.startTime;
    return { script: at("dsight:script"), boot: at("dsight:boot"), html: performance.getEntriesByType("navigation")[0].responseEnd };
  });
  assert.ok(got.script !== undefined, "no dsight:script mark");
  assert.ok(got.html <= got.script && got.script <= got.boot, `dsight:script at ${got.script} ms, the HTML in at ${got.html}, dsight:boot at ${got.boot}`);
  await page.close();
});
