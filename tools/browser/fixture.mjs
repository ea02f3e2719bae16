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

// sources, when given, is the generator's -sources list; flags are extra
// `dsight build` flags.
export function buildReport({ seed = 7, requests, hostile = true, dir, sources, flags = [] } = {}) {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run make build first`);
  const work = dir || fs.mkdtempSync(path.join(os.tmpdir(), "dsight-browser-"));
  const run = path.join(work, "run");
  const report = path.join(work, "report");
  const args = ["run", "./tools/gen", "-out", run, "-seed", String(seed)];
  if (requests) args.push("-requests", String(requests));
  if (hostile) args.push("-hostile");
  if (sources) args.push("-sources", sources);
  execFileSync("go", args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const started = process.hrtime.bigint();
  execFileSync(BIN, ["build", run, "-o", report, ...flags], { stdio: ["ignore", "ignore", "inherit"] });
  const buildSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { work, run, report, buildSeconds };
}

export function cli(report, kind, flags = {}) {
  const args = ["query", report, kind];
  // A boolean is a bare flag's value (--internal=true): given apart, it
  // would read as a positional argument.
  for (const [k, v] of Object.entries(flags)) typeof v === "boolean" ? args.push(`--${k}=${v}`) : args.push(`--${k}`, String(v));
  return JSON.parse(execFileSync(BIN, args, { encoding: "utf8", maxBuffer: 256 << 20 }));
}

// buildLifecycleRun writes the reference's traced example: a client export
// with one request joined through a frontend bridge to 14 OTel spans and two
// worker logs, one cancelled client-only request and one warmup row.
export function buildLifecycleRun(dir) {
  const src = path.join(ROOT, "internal", "importer", "join", "testdata", "write_run");
  const logs = path.join(dir, "run", "logs");
  fs.cpSync(src, logs, { recursive: true });
  const exportDir = path.join(logs, "agentic", "conc_2", "aiperf_artifacts");
  fs.mkdirSync(exportDir, { recursive: true });
  const rows = [
    { metadata: { x_request_id: "11111111-1111-4111-8111-111111111111", x_correlation_id: "agent-a", root_correlation_id: "session-a", request_start_ns: 1789642711000000000, request_end_ns: 1789642719000000000, benchmark_phase: "profiling" }, metrics: { time_to_first_token: { value: 3000, unit: "ms" } } },
    { metadata: { x_request_id: "client-only", x_correlation_id: "session-b", request_start_ns: 1789642720000000000, request_end_ns: 1789642721000000000, benchmark_phase: "profiling", was_cancelled: true }, metrics: {} },
    { metadata: { x_request_id: "warm", request_start_ns: 1789642700000000000, request_end_ns: 1789642701000000000, benchmark_phase: "warmup" }, metrics: {} },
  ];
  // Epoch nanoseconds exceed 2^53: write them as exact integer literals.
  const text = rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
  fs.writeFileSync(path.join(exportDir, "profile_export.jsonl"), exactNs(text));
  return path.join(dir, "run");
}

// exactNs re-inserts the nanosecond literals that JSON.stringify rounded.
function exactNs(text) {
  const exact = ["1789642711000000000", "1789642719000000000", "1789642720000000000", "1789642721000000000", "1789642700000000000", "1789642701000000000"];
  for (const v of exact) text = text.replace(String(Number(v)), v);
  return text;
}

export function buildFrom(run, report, ...flags) {
  execFileSync(BIN, ["build", run, "-o", report, ...flags], { stdio: ["ignore", "ignore", "inherit"] });
  return report;
}
