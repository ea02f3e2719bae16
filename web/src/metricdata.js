// Metric samples on demand: ask the engine which shards a question needs
// (metric_plan), load the missing ones in parallel through the detail
// loader, hand them over, then ask the question (metrics), exactly as
// `dsight query REPORT metrics` does. Shards stay loaded once handed over.
// Charts take a shorter path (plotSeries): they name the series they draw,
// load only those series' shards, and get columns of numbers back.

import { ask, loadShard as handOver, plot as enginePlot } from "./engine.js";
import { loadShard } from "./loader.js";
import { decodePlot } from "./metricplot.js";

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

const familyMeta = new Map(); // family name → its series' metadata

// familySeries lists a family's series metadata in catalog order (asked
// once per family: it does not change with the range).
export function familySeries(name) {
  let items = familyMeta.get(name);
  if (!items) {
    items = [];
    for (let offset = 0; ; offset += 1000) {
      const page = ask("metric_series", { name, offset, limit: 1000 });
      items.push(...page.items);
      if (items.length >= page.total || page.items.length === 0) break;
    }
    familyMeta.set(name, items);
  }
  return items;
}

// plotSeries resolves to the decoded plot (metricplot.js) of the series
// ids over [from, to] for a chart pixels wide, loading first the shards
// of those series and of their limit series, and only those. family names
// the family for metricDataStatus.
export async function plotSeries({ from, to, pixels, ids, family }) {
  const args = { from, to, pixels, series: ids };
  for (let round = 0; ; round++) {
    const r = enginePlot(args);
    if (r instanceof Uint8Array) {
      if (family !== undefined) familiesLoaded.add(family);
      return decodePlot(r);
    }
    if (round > 0) throw new Error(`metric shards did not load: ${r.shards.map((s) => s.id).join(", ")}`);
    if (family !== undefined) familiesPending.set(family, (familiesPending.get(family) || 0) + 1);
    try {
      await Promise.all(r.shards.map(ensureShard));
    } finally {
      if (family !== undefined) {
        const n = familiesPending.get(family) - 1;
        n > 0 ? familiesPending.set(family, n) : familiesPending.delete(family);
      }
    }
  }
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
