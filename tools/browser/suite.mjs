// The set-up most browser test files share: a run written by tools/gen,
// built into a report with the real CLI, one Chromium and one loopback
// HTTP server on it, all closed and removed when the file's tests end.

import { before, after } from "node:test";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launch, serve } from "./harness.mjs";
import { buildFrom, ROOT } from "./fixture.mjs";

// generatedReport registers the file's before and after hooks and returns
// the object they fill: report (its directory), browser and server, set
// once before has run. genArgs are tools/gen's flags after -out; buildFlags
// are dsight build's after -o.
export function generatedReport(name, genArgs, buildFlags = []) {
  const at = { work: null, report: null, browser: null, server: null };
  before(async () => {
    at.work = fs.mkdtempSync(path.join(os.tmpdir(), `dsight-${name}-`));
    const run = path.join(at.work, "run");
    execFileSync("go", ["run", "./tools/gen", "-out", run, ...genArgs], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
    at.report = buildFrom(run, path.join(at.work, "report"), ...buildFlags);
    at.browser = await launch();
    at.server = await serve(at.report);
  });
  after(async () => {
    await at.browser?.close();
    await at.server?.close();
    if (at.work) fs.rmSync(at.work, { recursive: true, force: true });
  });
  return at;
}
