// The page's Download Perfetto button in Debian's chromium, from file://
// and from a loopback HTTP server: the file it saves, and the bytes
// traceExplorer.exportPerfetto() resolves to, equal what
// `dsight export perfetto` writes for the same report (one engine, loading
// the metric and NVTX shards it names). Prints the time the page took.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { launch, open, serve, fileURL } from "./harness.mjs";
import { buildFrom, BIN, ROOT } from "./fixture.mjs";

let work;
let report;
let cliBytes;
let browser;
let server;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-perfetto-"));
  const run = path.join(work, "run");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "6", "-requests", "200", "-hostile", "-sources", "aiperf,frontend,otel,workers,sglang,tachometer,nsight", "-nsight-ranges", "20000"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  report = buildFrom(run, path.join(work, "report"), "--iteration-timezone", "UTC");
  const out = path.join(work, "cli.pftrace");
  execFileSync(BIN, ["export", "perfetto", report, "-o", out], { stdio: ["ignore", "ignore", "inherit"] });
  cliBytes = fs.readFileSync(out);
  browser = await launch();
  server = await serve(report);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

for (const mode of ["file", "http"]) {
  test(`${mode}: Download Perfetto saves the CLI export's bytes`, async () => {
    const { page, problems } = await open(browser.context, mode === "file" ? fileURL(report) : server.url);
    try {
      const d = await page.evaluate(() => traceExplorer.describe());
      assert.ok(d.capabilities.includes("exportPerfetto"));
      const button = page.locator("#downloadPerfetto");
      assert.equal(await button.textContent(), "Download Perfetto");
      const [download] = await Promise.all([page.waitForEvent("download", { timeout: 120000 }), button.click()]);
      assert.equal(download.suggestedFilename(), `${d.meta.job}.pftrace`);
      const saved = fs.readFileSync(await download.path());
      assert.equal(saved.length, cliBytes.length);
      assert.ok(saved.equals(cliBytes), "the saved trace differs from the CLI export");
      await page.waitForFunction(() => !document.getElementById("downloadPerfetto").disabled);
      // The facade answers the same bytes; time a second export (the
      // shards are loaded by now) and a fresh page's first one is above.
      const got = await page.evaluate(async () => {
        const t0 = performance.now();
        const b = await traceExplorer.exportPerfetto();
        const ms = performance.now() - t0;
        let h = 0;
        for (let i = 0; i < b.length; i++) h = (h * 31 + b[i]) >>> 0;
        return { length: b.length, hash: h, ms };
      });
      let h = 0;
      for (let i = 0; i < cliBytes.length; i++) h = (h * 31 + cliBytes[i]) >>> 0;
      assert.deepEqual({ length: got.length, hash: got.hash }, { length: cliBytes.length, hash: h });
      console.log(`# ${mode}: exportPerfetto() in the page: ${got.ms.toFixed(0)} ms for ${(got.length / 1e6).toFixed(1)} MB`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}
