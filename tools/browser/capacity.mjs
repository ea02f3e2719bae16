// An independent reading of a run's TokenSpeed capacity evidence, for the
// capacity browser test: its own parser of the worker-log lines
// (shared/spec/input-formats.md §0 and §7), its own local-time conversion
// through the platform's zone database, and its own capacity arithmetic
// (reference-behaviour.md §4.2–4.3 and §9 "Capacity summary"). It shares no
// code with the Go importer or the page.

import fs from "node:fs";
import path from "node:path";

const WORKER_FILE = /^(.+)_(prefill|decode|agg|aggregated)_w(\d+)(?:_e(\d+))?(?:_profile_(?:rank\d+|gpu[\d-]+))?(?:_window\d+)?\.out$/;
const PREFIX = /\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d+)\s+ATTN TP RANK (\d+)\]/;
const BATCH = /\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+ATTN TP RANK \d+\].*?(Prefill|Decode) batch\. (.+)/;
const CONFIG = /\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+ATTN TP RANK \d+\].*?Scheduler config: (.+)/;
const RUNNING = /#running-req:\s*(\d+)/;
const PAGES = /#pages\(active\/cached\/total\):\s*(\d+)\/(\d+)\/(\d+)/;
const MAX_BATCH = /(?:^|\s)max_batch_size=(\S*)(?=\s|$)/;

// zoneOffsetMs returns the zone's offset from UTC, in ms, at UTC instant ms.
function zoneOffsetMs(fmt, ms) {
  const p = Object.fromEntries(fmt.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

// localToEpochNS converts a naive wall-clock time in zone to epoch ns.
export function localToEpochNS(fmt, [y, mo, d, h, mi, s, frac]) {
  const wall = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s);
  let utc = wall - zoneOffsetMs(fmt, wall);
  utc = wall - zoneOffsetMs(fmt, utc); // settle across an offset change
  const fracNS = BigInt(frac.padEnd(9, "0").slice(0, 9));
  return BigInt(utc) * 1000000n + fracNS;
}

// originNS is the earliest request start of the profiling rows of the
// client export (the report's time origin), read as exact integers.
export function originNS(run) {
  const artifacts = path.join(run, "logs", "artifacts");
  let min = null;
  for (const dir of fs.readdirSync(artifacts)) {
    const text = fs.readFileSync(path.join(artifacts, dir, "profile_export.jsonl"), "utf8");
    for (const line of text.split("\n")) {
      if (!line.includes('"benchmark_phase":"profiling"')) continue;
      const start = BigInt(/"request_start_ns":(\d+)/.exec(line)[1]);
      if (min === null || start < min) min = start;
    }
  }
  return min;
}

// readTokenSpeedRun reads every worker log of the run: one scope per (file,
// TP rank) with its decode samples (time, running requests, active and
// total pages) and its scheduler settings (time, max_batch_size or null).
// Times are elapsed seconds from the origin.
export function readTokenSpeedRun(run, zone) {
  const fmt = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  const origin = originNS(run);
  const logs = path.join(run, "logs");
  const scopes = new Map();
  for (const file of fs.readdirSync(logs).sort()) {
    const id = WORKER_FILE.exec(file);
    if (!id) continue;
    const role = id[2] === "aggregated" ? "agg" : id[2];
    const lines = fs.readFileSync(path.join(logs, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      const pre = PREFIX.exec(line);
      if (!pre) return;
      const rank = Number(pre[8]);
      const key = `${file}#${rank}`;
      if (!scopes.has(key)) scopes.set(key, { file, host: id[1], worker: `${role}-${Number(id[3])}`, role, rank, samples: [], settings: [] });
      const scope = scopes.get(key);
      const t = Number(localToEpochNS(fmt, pre.slice(1, 8)) - origin) / 1e9;
      const batch = BATCH.exec(line);
      if (batch) {
        const running = batch[1] === "Decode" ? RUNNING.exec(batch[2]) : null;
        const pages = PAGES.exec(batch[2]);
        if (running || pages) scope.samples.push({ t, line: i + 1, running: running ? Number(running[1]) : null, active: pages ? Number(pages[1]) : null, total: pages ? Number(pages[3]) : null });
        return;
      }
      const config = CONFIG.exec(line);
      if (config && (role === "decode" || role === "agg")) {
        const m = MAX_BATCH.exec(config[1]);
        const v = m && /^\d+$/.test(m[1]) && Number(m[1]) > 0 ? Number(m[1]) : null;
        scope.settings.push({ t, v, line: i + 1 });
      }
    });
  }
  for (const s of scopes.values()) {
    for (const list of [s.samples, s.settings]) {
      list.sort((a, b) => a.t - b.t);
      for (let k = 1; k < list.length; k++) if (list[k].t === list[k - 1].t) throw new Error(`${s.file}:${list[k].line}: two records at one time; this reading does not model conflicts`);
    }
    // Only the last setting before the origin is kept (at its own time).
    const before = s.settings.filter((x) => x.t < 0);
    s.settings = [...before.slice(-1), ...s.settings.filter((x) => x.t >= 0)];
  }
  return { originNS: origin, scopes: [...scopes.values()].filter((s) => s.samples.length || s.settings.length) };
}

// limitAt is the limit in force for a sample of family f at time t: the
// last setting at or before t, or the pool total logged with the sample.
function limitAt(scope, f, sample) {
  if (f.ref === "pool") return sample.total;
  let v = null;
  for (const s of scope.settings) {
    if (s.t > sample.t) break;
    v = s.v;
  }
  return v;
}

// expectCapacity computes a series' statistics and capacity legend over
// [from, to] from the scope's own lines.
export function expectCapacity(scope, f, from, to) {
  const inRange = scope.samples.filter((s) => s.t >= from && s.t <= to && s[f.value] !== null);
  const out = { samples: inRange.length, min: null, max: null, firstTime: null, lastTime: null, peakTime: null, unavailable: 0, usage: null, usageTime: null, carried: null };
  for (const s of inRange) {
    const v = s[f.value];
    if (out.max === null || v > out.max) (out.max = v), (out.peakTime = s.t);
    if (out.min === null || v < out.min) out.min = v;
    const limit = limitAt(scope, f, s);
    if (limit === null || !(limit > 0)) {
      out.unavailable++;
      continue;
    }
    if (out.usage === null || v / limit > out.usage) (out.usage = v / limit), (out.usageTime = s.t);
  }
  if (inRange.length) (out.firstTime = inRange[0].t), (out.lastTime = inRange[inRange.length - 1].t);
  // Limit values shown in the range: a setting carried in from before it
  // and those logged inside it; or the pool totals logged inside it.
  const values = [];
  if (f.ref === "setting") {
    // The carried setting is drawn from the left edge unless a setting was
    // logged exactly there.
    const carried = scope.settings.filter((s) => s.t < from).pop();
    if (carried) out.carried = { t: carried.t, v: carried.v, line: carried.line };
    const atEdge = scope.settings.some((s) => s.t === from);
    if (carried && carried.v !== null && !atEdge) values.push(carried.v);
    for (const s of scope.settings) if (s.t >= from && s.t <= to && s.v !== null) values.push(s.v);
  } else {
    for (const s of scope.samples) if (s.t >= from && s.t <= to && s.total !== null) values.push(s.total);
  }
  out.limitValues = [...new Set(values)].sort((a, b) => a - b);
  out.limit = out.limitValues.length === 0 ? "unavailable" : out.limitValues.length === 1 ? "constant" : "changed";
  out.limitMin = out.limitValues[0] ?? null;
  out.limitMax = out.limitValues[out.limitValues.length - 1] ?? null;
  out.form = out.limit;
  return out;
}

const num = (v) => v.toLocaleString("en-US", { maximumFractionDigits: 4 });

// legendLines is the capacity legend the spec prescribes for a computed
// answer (reference-behaviour.md §9 "Capacity summary").
export function legendLines(want, f) {
  if (!want.samples) return [`No observed value in range · ${f.label} shown where recorded`];
  // A unit word agrees with its count ("1 request").
  const unit = want.max === 1 && /^[a-z]{3,}s$/.test(f.unit) ? f.unit.slice(0, -1) : f.unit;
  const out = [`Peak observed ${num(want.max)} ${unit}`];
  if (want.limit === "constant") out.push(`${f.label} ${num(want.limitMin)}`);
  else if (want.limit === "changed") out.push(`${f.label} ${num(want.limitMin)}–${num(want.limitMax)} (changed)`);
  else out.push(`${f.label} unavailable`);
  if (want.usage !== null) out.push(`Highest observed usage ${(want.usage * 100).toLocaleString("en-US", { maximumFractionDigits: 1 })}%`);
  if (want.unavailable > 0) out.push(`Limit unavailable for ${want.unavailable}/${want.samples} samples`);
  return out;
}

// heldLimits lists the stretches of [from, to] over which a valid limit
// setting holds in the scope: {x0, x1, v}, from the setting in force at
// from (or logged inside the range) to the next setting or the right edge.
export function heldLimits(scope, from, to) {
  const out = [];
  let cur = null;
  for (const s of scope.settings) {
    if (s.t <= from) cur = { x0: from, v: s.v };
    else if (s.t <= to) {
      if (cur && cur.v !== null) out.push({ ...cur, x1: s.t });
      cur = { x0: s.t, v: s.v };
    }
  }
  if (cur && cur.v !== null) out.push({ ...cur, x1: to });
  return out;
}
