// The browser examples of docs/agents.md, run in the real page: every
// ```js test block is evaluated as the body of an async function against a
// report built like the demo's, and the view link it saves reopens the same
// selection. The page never requests trace-data.sqlite.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { launch, open, serve } from "./harness.mjs";
import { buildFrom, ROOT, BIN } from "./fixture.mjs";

let work, browser, server, report;

function guideBlocks(lang) {
  const lines = fs.readFileSync(path.join(ROOT, "docs", "agents.md"), "utf8").split("\n");
  const out = [];
  let cur = null;
  lines.forEach((line, i) => {
    if (cur === null && line.startsWith("```")) {
      const info = line.slice(3).trim().split(/\s+/);
      cur = info[0] === lang && info[1] === "test" ? { line: i + 1, text: "" } : { skip: true };
    } else if (cur !== null && line === "```") {
      if (!cur.skip) out.push(cur);
      cur = null;
    } else if (cur !== null) {
      cur.text += line + "\n";
    }
  });
  return out;
}

before(async () => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run make build first`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-agents-"));
  const run = path.join(work, "run");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "1", "-scale", "1", "-hostile", "-sources", "aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer,nsight"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  report = buildFrom(run, path.join(work, "report"), "--iteration-timezone", "UTC");
  browser = await launch();
  server = await serve(report);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test("the js examples of docs/agents.md run in the page and their saved view reopens", async () => {
  const blocks = guideBlocks("js");
  assert.ok(blocks.length >= 1, "docs/agents.md has no js test block");
  assert.ok(fs.existsSync(path.join(report, "trace-data.sqlite")), "the report has its SQL store");
  for (const b of blocks) {
    const { page, problems, requests } = await open(browser.context, server.url);
    const result = await page.evaluate(`(async () => {\n${b.text}\n})()`);
    assert.equal(typeof result, "object", `docs/agents.md:${b.line} returns an object`);
    assert.equal(result.from, 60, `docs/agents.md:${b.line}: range start`);
    assert.equal(result.to, 120, `docs/agents.md:${b.line}: range end`);
    assert.ok(result.request, `docs/agents.md:${b.line}: a slow request was selected`);
    assert.match(result.link, /#view=/);
    await page.close();

    // The saved link reopens the selection a person reviews.
    const again = await open(browser.context, result.link);
    const state = await again.page.evaluate(() => window.traceExplorer.getState());
    assert.equal(state.request, result.request);
    assert.equal(state.from, 60);
    assert.equal(state.to, 120);
    await again.page.close();

    for (const r of [...requests, ...again.requests]) assert.ok(!r.includes("trace-data.sqlite"), `the page requested ${r}`);
    assert.deepEqual([...problems, ...again.problems], []);
  }
});
