// Edge benchmark: the demo report opened through a short link on the local
// edge versus the same report from file://, in fresh chromium profiles,
// alternating, --loads times each (3 by default). Prints the medians of the
// first chart ("dsight:first-chart", ms from navigation) and of
// trace-explorer:ready, the bytes on the wire on a first and a second visit,
// and publish times (first, repeated, after one changed input).
//
//   make build edge && node tools/browser/bench-edge.mjs [--loads 3]

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { launch, fileURL } from "./harness.mjs";
import { BIN } from "./fixture.mjs";
import { buildDemo, dsight, startEdge, tempDir, visit, workerdBinary } from "./edge.mjs";

const i = process.argv.indexOf("--loads");
const LOADS = i > 0 ? Number(process.argv[i + 1]) : 3;
const { bin, why } = workerdBinary();
if (!bin) {
  console.log(`SKIP edge benchmark: ${why}`);
  process.exit(0);
}
const work = tempDir();
let edge;
const timed = (f) => {
  const t = process.hrtime.bigint();
  const out = f();
  return [out, Number(process.hrtime.bigint() - t) / 1e6];
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const fx = buildDemo(work);
  const bucket = `${work}/bucket`;
  const [pub, publishMs] = timed(() => dsight("publish", fx.report, "--to", bucket));
  const [, republishMs] = timed(() => dsight("publish", fx.report, "--to", bucket));
  // One changed input: the last line of one worker log dropped.
  const log = fs.readdirSync(`${fx.run}/logs`).find((f) => f.endsWith("decode_w0.out"));
  const p = `${fx.run}/logs/${log}`;
  const lines = fs.readFileSync(p, "utf8").trimEnd().split("\n");
  fs.writeFileSync(p, lines.slice(0, -1).join("\n") + "\n");
  execFileSync(BIN, ["build", fx.run, "-o", `${work}/report2`, "--iteration-timezone", "UTC"], { stdio: "ignore" });
  const [changed, changedMs] = timed(() => dsight("publish", `${work}/report2`, "--to", bucket));

  edge = await startEdge(bin, bucket);
  let state;
  {
    const b = await launch();
    const v = await visit(b.context, fileURL(fx.report));
    state = await v.page.evaluate(() => traceExplorer.getState());
    await b.close();
  }
  const fragment = `#view=${encodeURIComponent(JSON.stringify(state))}`;
  const link = dsight("link", fx.report, "--view", fragment, "--to", bucket, "--base-url", edge.url);
  const runs = { file: [], edge: [] };
  const bytes = { first: [], second: [] };
  for (let k = 0; k < LOADS; k++) {
    for (const mode of ["file", "edge"]) {
      const b = await launch();
      try {
        const v = await visit(b.context, mode === "file" ? `${fileURL(fx.report)}${fragment}` : link.url);
        runs[mode].push({ chart: v.firstChart, ready: v.readyAt });
        if (mode === "edge") {
          bytes.first.push(v.responses().reduce((n, r) => n + r.bytes, 0));
          await v.page.close();
          const again = await visit(b.context, link.url);
          bytes.second.push(again.responses().reduce((n, r) => n + r.bytes, 0));
        }
      } finally {
        await b.close();
      }
    }
  }
  const sum = (rs, key) => Math.round(median(rs.map((r) => r[key])));
  console.log(
    JSON.stringify(
      {
        loads: LOADS,
        first_chart_ms: { file: sum(runs.file, "chart"), edge: sum(runs.edge, "chart") },
        ready_ms: { file: sum(runs.file, "ready"), edge: sum(runs.edge, "ready") },
        all_first_chart_ms: { file: runs.file.map((r) => Math.round(r.chart)), edge: runs.edge.map((r) => Math.round(r.chart)) },
        bytes_on_the_wire: { first_visit: median(bytes.first), second_visit: median(bytes.second) },
        publish_ms: { first: Math.round(publishMs), objects: pub.written.length, again: Math.round(republishMs), one_changed_input: Math.round(changedMs), objects_written_after_change: changed.written.length },
        report_bytes: fs.readdirSync(`${fx.report}/detail`).reduce((n, f) => n + fs.statSync(`${fx.report}/detail/${f}`).size, 0) + fs.statSync(`${fx.report}/index.html`).size,
        loadavg: os.loadavg().map((x) => +x.toFixed(1)),
      },
      null,
      2,
    ),
  );
} finally {
  await edge?.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
