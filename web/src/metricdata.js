// Metric samples on demand: ask the engine which shards a question needs
// (metric_plan), load the missing ones in parallel through the detail
// loader, hand them over, then ask the question (metrics), exactly as
// `dsight query REPORT metrics` does. Charts take a shorter path
// (plotSeries): they name the series they draw, load only those series'
// shards, and get columns of numbers back.
//
// The engine keeps the shards in a cache bounded by their decoded bytes
// and rows (internal/query/metriccache.go): it drops the least recently
// used after an answer, so the page never tracks what is loaded itself and
// asks the engine instead. A shard handed over stays until an answer reads
// it; one that was present when a question was planned can be dropped by
// another answer before the question is asked, so a question that finds a
// shard gone plans and loads again.

import { ask, loadShard as handOver, plot as enginePlot, metricCache as engineCache } from "./engine.js";
import { loadShard } from "./loader.js";
import { decodePlot } from "./metricplot.js";

const inflight = new Map(); // shard id → promise of its hand-over
const familiesPending = new Map(); // name → questions still loading
const ROUNDS = 4; // plan-load-ask attempts before a question gives up

function ensureShard(need) {
  let p = inflight.get(need.id);
  if (!p) {
    p = loadShard(need)
      .then((bytes) => handOver(need.id, bytes))
      .finally(() => inflight.delete(need.id));
    inflight.set(need.id, p);
  }
  return p;
}

// loadFor loads the shards a question of family name needs, counting it as
// pending meanwhile.
async function loadFor(name, shards) {
  if (name !== undefined) familiesPending.set(name, (familiesPending.get(name) || 0) + 1);
  try {
    await Promise.all(shards.map(ensureShard));
  } finally {
    if (name !== undefined) {
      const n = familiesPending.get(name) - 1;
      n > 0 ? familiesPending.set(name, n) : familiesPending.delete(name);
    }
  }
}

// loadShards loads the metric shards another question (range statistics)
// named, counting them against family name meanwhile.
export const loadShards = (name, shards) => loadFor(name, shards);

// A page opened with ?metric-cache-bytes=N keeps at most N bytes of metric
// shards. It can only lower the budget: it trades reloads for memory and
// never changes an answer.
let configured = false;
function configureCache() {
  if (configured) return;
  configured = true;
  const knob = new URLSearchParams(location.search).get("metric-cache-bytes");
  const n = knob === null ? NaN : Number(knob);
  if (Number.isInteger(n) && n >= 0) engineCache(Math.min(n, engineCache().max_bytes));
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
  configureCache();
  for (let round = 1; ; round++) {
    const plan = ask("metric_plan", args);
    if (plan.shards.length) await loadFor(args.name, plan.shards);
    try {
      return ask("metrics", args);
    } catch (err) {
      if (round >= ROUNDS || err.code !== "shards_needed") throw err;
    }
  }
}

// queryAllMetrics resolves to the page's "page_metrics" answer: an array of
// every matching series (traceExplorer.queryMetrics). The engine names the
// shards it needs in its shards_needed failure; they are loaded and the
// question asked again.
export async function queryAllMetrics(args) {
  configureCache();
  const { offset, limit, ...rest } = args;
  for (let round = 1; ; round++) {
    try {
      return ask("page_metrics", rest);
    } catch (err) {
      if (round >= ROUNDS || err.code !== "shards_needed") throw err;
      await loadFor(args.name, err.shards);
    }
  }
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
// the family for metricDataStatus. The answer is written into buffers
// (a chart's PlotBuffers) when given; it resolves to null, without asking,
// once stale() says a newer plot replaced this one. It asks once the call
// that changed the view has returned (a chart draws asynchronously anyway,
// whenMetricsReady): a run of synchronous calls (a script's, a drag's)
// asks for the last view's plot only, and none of them waits for one.
export async function plotSeries({ from, to, pixels, ids, family, buffers, stale }) {
  await null;
  configureCache();
  const args = { from, to, pixels, series: ids };
  for (let round = 1; ; round++) {
    if (stale?.()) return null;
    const r = plotHeld(args, buffers);
    if (!r.shards) return r;
    if (round >= ROUNDS) throw new Error(`metric shards did not load: ${r.shards.map((s) => s.id).join(", ")}`);
    await loadFor(family, r.shards);
  }
}

// plotHeld answers a plot from the shards the engine holds: the decoded
// plot, or {shards} naming those to load first. It loads nothing.
export function plotHeld(args, buffers) {
  const r = enginePlot(args, buffers?.spare());
  if (!(r instanceof Uint8Array)) return r;
  buffers?.wrote(r);
  return decodePlot(r);
}

// PlotBuffers are a chart's two answer buffers: the drawn chart reads its
// points straight from one (decodePlot copies nothing), so the next answer
// goes into the other, and the two swap when that answer is drawn. Reusing
// them instead of a fresh array per zoom spares the page faults of first
// writes to new memory, about 0.7 ms per 160 KB answer on this machine.
export class PlotBuffers {
  constructor() {
    this.bufs = [null, null];
    this.drawn = 0;
  }

  // spare is the buffer the drawn chart does not read, or null.
  spare() {
    return this.bufs[1 - this.drawn];
  }

  // wrote keeps the whole buffer behind bytes, an answer just written to
  // the spare slot (or to a larger array the engine made instead).
  wrote(bytes) {
    this.bufs[1 - this.drawn] = new Uint8Array(bytes.buffer);
  }

  // swap records that the spare slot's answer is now drawn.
  swap() {
    this.drawn = 1 - this.drawn;
  }
}

// metricDataStatus reports what the engine holds: cachedFamilies names the
// families all of whose shards are held, pendingFamilies those loading, cachedPoints the held shards' rows,
// cachedBytes their decoded bytes; maxCachedPoints and maxCachedBytes are
// the budget, evictedShards the shards dropped to keep within it.
export function metricDataStatus() {
  configureCache();
  const c = engineCache();
  return {
    cachedFamilies: c.family_names,
    pendingFamilies: [...familiesPending.keys()],
    cachedShards: c.shards,
    pendingShards: inflight.size,
    cachedSeries: c.series,
    cachedPoints: c.points,
    maxCachedPoints: c.max_points,
    cachedBytes: c.bytes,
    maxCachedBytes: c.max_bytes,
    evictedShards: c.evicted,
  };
}
