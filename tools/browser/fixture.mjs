// Builds a generated run into a report with the real CLI, for browser tests
// and benchmarks, and asks the CLI the same questions the page answers.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = path.join(ROOT, "bin", "dsight");
export const OUT = path.join(ROOT, "tools", "browser", "out");

export function buildReport({ seed = 7, requests, hostile = true, dir } = {}) {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run make build first`);
  const work = dir || fs.mkdtempSync(path.join(os.tmpdir(), "dsight-browser-"));
  const run = path.join(work, "run");
  const report = path.join(work, "report");
  const args = ["run", "./tools/gen", "-out", run, "-seed", String(seed)];
  if (requests) args.push("-requests", String(requests));
  if (hostile) args.push("-hostile");
  execFileSync("go", args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const started = process.hrtime.bigint();
  execFileSync(BIN, ["build", run, "-o", report], { stdio: ["ignore", "ignore", "inherit"] });
  const buildSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { work, run, report, buildSeconds };
}

export function cli(report, kind, flags = {}) {
  const args = ["query", report, kind];
  for (const [k, v] of Object.entries(flags)) args.push(`--${k}`, String(v));
  return JSON.parse(execFileSync(BIN, args, { encoding: "utf8", maxBuffer: 256 << 20 }));
}
