// Load test of the local edge, on loopback, bounded in count and time:
// CLIENTS concurrent clients (200 by default) each fetch the demo report as
// the page does before its first chart (index.html, then the engine's,
// core's and evidence's shard scripts, gzip accepted), one request after
// another. Prints p50/p99 per request and per client, and the errors; exits
// 1 on any error. Every request has a timeout and the whole run a deadline.
//
//   make build edge && node tools/browser/edge-load.mjs [--clients 200] [--deadline-s 600]

import fs from "node:fs";
import os from "node:os";
import zlib from "node:zlib";
import { buildDemo, dsight, startEdge, tempDir, workerdBinary } from "./edge.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const CLIENTS = arg("clients", 200);
const DEADLINE_MS = arg("deadline-s", 600) * 1000;
const REQUEST_TIMEOUT_MS = 120000;

const { bin, why } = workerdBinary();
if (!bin) {
  console.log(`SKIP edge load test: ${why}`);
  process.exit(0);
}
const work = tempDir();
let edge;
try {
  const fx = buildDemo(work);
  const pub = dsight("publish", fx.report, "--to", `${work}/bucket`);
  // The published manifest: its core (source_root redacted) is not the local one.
  const manifest = JSON.parse(zlib.gunzipSync(fs.readFileSync(`${work}/bucket/reports/${pub.report_id}/manifest.json.gz`)));
  const paths = ["", ...Object.values(manifest.entry).flatMap((s) => s.parts.map((p) => p.path))];
  edge = await startEdge(bin, `${work}/bucket`);
  const base = `${edge.url}${pub.path}`;
  const deadline = AbortSignal.timeout(DEADLINE_MS);
  const latencies = [];
  const clientTimes = [];
  const errors = [];
  let bytes = 0;
  const client = async () => {
    const started = performance.now();
    for (const p of paths) {
      if (deadline.aborted) {
        errors.push("deadline reached before the request was sent");
        return;
      }
      const t = performance.now();
      try {
        const res = await fetch(base + p, { headers: { "accept-encoding": "gzip" }, signal: AbortSignal.any([deadline, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]) });
        const body = await res.arrayBuffer();
        if (res.status !== 200) errors.push(`${p || "index.html"}: ${res.status}`);
        bytes += body.byteLength;
      } catch (err) {
        errors.push(`${p || "index.html"}: ${err.message}`);
      }
      latencies.push(performance.now() - t);
    }
    clientTimes.push(performance.now() - started);
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const wall = performance.now() - t0;
  const pct = (xs, q) => {
    const s = [...xs].sort((a, b) => a - b);
    return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]);
  };
  console.log(
    JSON.stringify(
      {
        clients: CLIENTS,
        requests: latencies.length,
        requests_per_client: paths.length,
        errors: errors.length,
        first_errors: errors.slice(0, 5),
        request_ms: { p50: pct(latencies, 0.5), p99: pct(latencies, 0.99), max: pct(latencies, 1) },
        client_ms: { p50: pct(clientTimes, 0.5), p99: pct(clientTimes, 0.99) },
        wall_s: +(wall / 1000).toFixed(1),
        requests_per_s: +((latencies.length * 1000) / wall).toFixed(1),
        bytes_received: bytes,
        loadavg: os.loadavg().map((x) => +x.toFixed(1)),
        cpus: os.cpus().length,
      },
      null,
      2,
    ),
  );
  process.exitCode = errors.length ? 1 : 0;
} finally {
  await edge?.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
