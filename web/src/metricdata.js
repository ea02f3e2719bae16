// Metric samples on demand: ask the engine which shards a question needs
// (metric_plan), load the missing ones in parallel through the detail
// loader, hand them over, then ask the question (metrics), exactly as
// `dsight query REPORT metrics` does. Shards stay loaded once handed over.

import { ask, loadShard as handOver } from "./engine.js";
import { loadShard } from "./loader.js";

const loaded = new Set(); // shard ids the engine holds
const inflight = new Map(); // shard id → promise of its hand-over
const loadedSeries = new Set(); // series ids whose samples the engine holds
let seriesRows = null; // series id → rows, for the status answer
const familiesLoaded = new Set(); // names asked for whose shards all arrived
const familiesPending = new Map(); // name → questions still loading

function ensureShard(need) {
  if (loaded.has(need.id)) return Promise.resolve();
  let p = inflight.get(need.id);
  if (!p) {
    p = loadShard(need)
      .then((bytes) => {
        handOver(need.id, bytes);
        loaded.add(need.id);
        for (const i of need.series) loadedSeries.add(i);
      })
      .finally(() => inflight.delete(need.id));
    inflight.set(need.id, p);
  }
  return p;
}

// metricArgs turns queryMetrics options into engine arguments: gpu and rank
// compare as strings; unknown options are ignored.
export function metricArgs(o = {}) {
  const str = (v) => (v === undefined || v === null ? undefined : String(v));
  return {
    from: o.from,
    to: o.to,
    worker: str(o.worker),
    host: str(o.host),
    gpu: str(o.gpu),
    rank: str(o.rank),
    name: str(o.name),
    points: o.points ? true : undefined,
    pixels: o.pixels,
    offset: o.offset,
    limit: o.limit,
  };
}

// queryMetrics resolves to the engine's "metrics" answer once every shard
// the question needs is loaded.
export async function queryMetrics(args) {
  const plan = ask("metric_plan", args);
  const name = args.name;
  if (plan.shards.length) {
    if (name !== undefined) familiesPending.set(name, (familiesPending.get(name) || 0) + 1);
    try {
      await Promise.all(plan.shards.map(ensureShard));
    } finally {
      if (name !== undefined) {
        const n = familiesPending.get(name) - 1;
        n > 0 ? familiesPending.set(name, n) : familiesPending.delete(name);
      }
    }
  }
  if (name !== undefined) familiesLoaded.add(name);
  return ask("metrics", args);
}

export function metricDataStatus() {
  if (seriesRows === null) {
    seriesRows = new Map();
    for (let offset = 0; ; offset += 1000) {
      const page = ask("metric_series", { offset, limit: 1000 });
      for (const s of page.items) seriesRows.set(s.id, s.rows ?? 0);
      if (offset + page.items.length >= page.total || page.items.length === 0) break;
    }
  }
  let points = 0;
  for (const id of loadedSeries) points += seriesRows.get(id) ?? 0;
  return { cachedFamilies: familiesLoaded.size, pendingFamilies: familiesPending.size, cachedShards: loaded.size, pendingShards: inflight.size, cachedSeries: loadedSeries.size, cachedPoints: points, maxCachedPoints: null };
}
