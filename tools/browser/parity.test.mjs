// CLI/page parity: one engine answers both. A battery of questions across
// every public query kind, asked through `dsight query REPORT KIND` and
// through the page's traceExplorer.query(kind, args) (the wasm engine's
// answer unchanged), must give identical JSON; failures must carry the
// same code. The facade methods that reshape answers (globalTid, default
// pages) have their own tests; this one compares at the engine level.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import { launch, open, fileURL } from "./harness.mjs";
import { buildFrom, BIN, ROOT } from "./fixture.mjs";

let work;
let report;
let browser;

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dsight-parity-"));
  const run = path.join(work, "run");
  execFileSync("go", ["run", "./tools/gen", "-out", run, "-seed", "5", "-requests", "150", "-hostile", "-nsight-ranges", "3000",
    "-sources", "aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer,nsight"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  report = buildFrom(run, path.join(work, "report"), "--iteration-timezone", "UTC");
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// argv turns engine arguments into CLI flags: --snake-case, booleans bare.
function argv(args) {
  const out = [];
  for (const [k, v] of Object.entries(args)) {
    const flag = `--${k.replaceAll("_", "-")}`;
    if (v === true) out.push(flag);
    else out.push(flag, String(v));
  }
  return out;
}

// ask runs the CLI: {ok, result} or {ok: false, code}.
function ask(kind, args) {
  const r = spawnSync(BIN, ["query", report, kind, ...argv(args)], { encoding: "utf8", maxBuffer: 256 << 20 });
  if (r.status === 0) return { ok: true, result: JSON.parse(r.stdout) };
  const env = JSON.parse(r.stderr);
  return { ok: false, code: env.code, exit: r.status };
}

test("CLI and page give identical answers for every public kind", async () => {
  const { page, problems } = await open(browser.context, fileURL(report));
  try {
    // The server evidence loads after the page is ready.
    await page.waitForFunction(() => performance.getEntriesByName("dsight:evidence").length > 0, null, { timeout: 20000 });
    const summary = ask("summary", {}).result;
    const dur = summary.meta.duration;
    const requests = ask("requests", { limit: 1000 }).result.items;
    const traced = requests.filter((r) => r.span_count > 0);
    const workers = ask("workers", {}).result.items;
    const families = ask("metric_families", {}).result.items;
    const profiles = ask("profiles", {}).result.items;
    const ranked = workers.find((w) => w.rank_scopes.some((s) => s.from === "iterations"));
    const workerProfile = profiles.find((p) => p.worker !== "frontend");
    assert.ok(traced.length >= 2 && ranked && workerProfile && families.length > 3, "the run has every kind of evidence");
    const mid = dur / 2;
    const battery = [
      ["summary", {}],
      ["requests", {}],
      ["requests", { from: 10, to: 60, limit: 7 }],
      ["requests", { from: mid, to: mid + 5, min_ttft_ms: 100 }],
      ["requests", { worker: traced[0].workers[0], offset: 2, limit: 5 }],
      ["requests", { search: "conv", limit: 3 }],
      ["requests", { session: requests[3].session }],
      ["requests", { limit: 0 }],
      ["request", { id: traced[0].id }],
      ["request", { id: requests[requests.length - 1].id }],
      ["lifecycle", { id: traced[0].id }],
      ["lifecycle", { id: traced[1].id }],
      ["sessions", {}],
      ["sessions", { sort: "ttft", limit: 3 }],
      ["sessions", { sort: "count", from: 5, to: mid }],
      ["server_spans", {}],
      ["server_spans", { from: 0, to: mid, limit: 5 }],
      ["iterations", { limit: 10 }],
      ["iterations", { from: mid, to: mid + 10, worker: ranked.id, rank: String(ranked.rank_scopes.find((s) => s.from === "iterations").ranks[0]) }],
      ["iterations", { worker: ranked.id, offset: 5, limit: 5 }],
      ["sources", {}],
      ["sources", { offset: 2, limit: 3 }],
      ["source", { id: "0" }],
      ["source", { id: "9999" }],
      ["metric_families", {}],
      ["metric_series", { limit: 20 }],
      ["metric_series", { name: families[0].name }],
      ["metrics", { name: families[0].name }],
      ["metrics", { name: families[2].name, from: 10, to: 40, points: true }],
      ["metrics", { worker: ranked.id, limit: 5 }],
      ["metrics", { name: families[families.length - 1].name, points: true, pixels: 300 }],
      ["profiles", {}],
      ["profiles", { worker: workerProfile.worker }],
      ["nsys", { from: mid, to: mid + 2, limit: 20 }],
      ["nsys", { profile: workerProfile.id, offset: 100, limit: 50 }],
      ["nsys", { worker: workerProfile.worker, name: "sched", limit: 10 }],
      ["cpu", { profile: workerProfile.id }],
      ["cpu", { from: 0, to: mid, limit: 5 }],
      ["workers", {}],
      ["workers", { role: "decode" }],
      ["workers", { worker: ranked.id }],
    ];
    const kinds = new Set(battery.map(([k]) => k));
    for (const k of ["summary", "requests", "request", "lifecycle", "metrics", "profiles", "nsys", "cpu", "iterations", "server_spans", "sources", "sessions", "metric_families", "workers"]) assert.ok(kinds.has(k), `battery covers ${k}`);
    assert.ok(battery.length >= 30);
    for (const [kind, args] of battery) {
      const want = ask(kind, args);
      assert.ok(want.ok, `${kind} ${JSON.stringify(args)}: CLI failed with ${want.code}`);
      const got = await page.evaluate(([k, a]) => traceExplorer.query(k, a), [kind, args]);
      assert.deepEqual(got, want.result, `${kind} ${JSON.stringify(args)}`);
    }
    // Failures: the same code on both surfaces (the CLI exits 1).
    const failures = [
      ["requests", { from: 5, to: 5 }, "bad_args"],
      ["requests", { limit: 1001 }, "bad_args"],
      ["requests", { sort: "ttft" }, "bad_args"],
      ["request", { id: "no-such-request" }, "not_found"],
      ["metrics", { name: "no_such_metric" }, "not_found"],
      ["iterations", { worker: "decode-99" }, "not_found"],
      ["nsys", { worker: "decode-99" }, "not_found"],
      ["workers", { worker: "decode-99" }, "not_found"],
      ["profiles", { worker: "frontend", rank: "0" }, "bad_args"],
      ["nonsense", {}, "bad_args"],
    ];
    for (const [kind, args, code] of failures) {
      const want = ask(kind, args);
      assert.equal(want.ok, false, `${kind} ${JSON.stringify(args)} succeeded on the CLI`);
      assert.equal(want.code, code, `${kind} ${JSON.stringify(args)}: CLI code`);
      assert.equal(want.exit, 1);
      const got = await page.evaluate(([k, a]) => traceExplorer.query(k, a).then(() => "ok", (e) => e.code), [kind, args]);
      assert.equal(got, code, `${kind} ${JSON.stringify(args)}: page code`);
    }
    // The page refuses its internal kinds through query().
    assert.equal(await page.evaluate(() => traceExplorer.query("timeline", {}).then(() => "ok", (e) => e.code)), "bad_args");
    // The facade's listWorkers is the workers kind's items.
    assert.deepEqual(await page.evaluate(() => traceExplorer.listWorkers()), workers);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
