// The traced example built from hostile inputs (corpus cases of
// cmd/build/testdata/hostile): logs on shared storage outside the run,
// impossible log dates, log-metric and batch lines that fail validation
// and, with --no-otel, a request whose decode worker only OTel named. The
// page's coverage view lists every warning the manifest carries, word for
// word, and the summary's audit counters equal the CLI's.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, open, fileURL } from "./harness.mjs";
import { buildLifecycleRun, buildFrom, cli, OUT, ROOT } from "./fixture.mjs";

const CORPUS = path.join(ROOT, "cmd", "build", "testdata", "hostile");
const CASES = ["implausible-log-times", "sglang-invalid-values", "tokenspeed-invalid-fields", "decode-worker-only-in-otel"];
const COUNTERS = ["symlinks_outside_run", "implausible_log_timestamps", "rejected_log_metric_lines", "rejected_batch_lines", "requests_without_decode_worker"];

let work, report, browser;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-hostile-"));
  const run = buildLifecycleRun(work);
  for (const c of CASES) fs.cpSync(path.join(CORPUS, c, "overlay"), run, { recursive: true });
  // The logs live on shared storage, outside the run, behind a link.
  const shared = path.join(work, "shared", "logs");
  fs.mkdirSync(path.dirname(shared), { recursive: true });
  fs.renameSync(path.join(run, "logs"), shared);
  fs.symlinkSync(shared, path.join(run, "logs"));
  report = buildFrom(run, path.join(work, "report"), "--no-otel");
  browser = await launch();
  fs.mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await browser?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test("the coverage view lists every manifest warning of a hostile build", async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(report, "manifest.json"), "utf8"));
  const summary = cli(report, "summary");
  for (const k of COUNTERS) assert.ok(summary.audit[k] > 0, `the build counts no ${k}: ${JSON.stringify(summary.audit)}`);
  assert.deepEqual(manifest.summary.meta.warnings, summary.meta.warnings);
  const { page, problems } = await open(browser.context, fileURL(report));
  try {
    const seen = await page.evaluate(() => ({
      items: [...document.querySelectorAll("#coverage li")].map((li) => li.textContent),
      warn: document.querySelector("#coverage").classList.contains("warn"),
      hidden: document.querySelector("#coverage").hidden,
      audit: traceExplorer.describe().audit,
    }));
    assert.equal(seen.hidden, false);
    assert.equal(seen.warn, true);
    for (const w of summary.meta.warnings) assert.ok(seen.items.includes(w), `the coverage view does not list: ${w}`);
    for (const k of COUNTERS) assert.equal(seen.audit[k], summary.audit[k], k);
    await page.locator("#coverage").screenshot({ path: path.join(OUT, "hostile-coverage.png") });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
