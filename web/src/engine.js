// The page's one door into the Go engine (internal/query). Every question is
// one synchronous call: JSON in, JSON out. Must match internal/query/protocol.go.

let engine = null;

export function attach(e) {
  engine = e;
}

export function load(bytes) {
  return unwrap(engine.load(bytes));
}

export function ask(op, args) {
  const clean = {};
  for (const [k, v] of Object.entries(args || {})) if (v !== undefined && v !== null) clean[k] = v;
  return unwrap(engine.handle(JSON.stringify({ op, args: clean })));
}

function unwrap(text) {
  const env = JSON.parse(text);
  if (!env.ok) throw new Error(env.error);
  return env.result === undefined ? null : env.result;
}

// loadEvidence hands the engine the decoded server evidence shard.
export function loadEvidence(bytes) {
  unwrap(engine.loadEvidence(bytes));
}

// loadShard hands the engine a decoded metric shard named by its id.
export function loadShard(id, bytes) {
  unwrap(engine.loadShard(id, bytes));
}

// plot asks for a metric chart's columns (internal/query.Plot.Encode): a
// Uint8Array of float64s, or {shards} naming the metric shards to load
// first; other failures throw. The answer is written into into when it has
// room (a view on it is returned); otherwise it is a view on a new, larger
// buffer, to pass as into next time.
export function plot(args, into) {
  const r = into ? engine.plot(JSON.stringify(args), into) : engine.plot(JSON.stringify(args));
  if (typeof r === "number") return into.subarray(0, r);
  if (typeof r !== "string") return r;
  const env = JSON.parse(r);
  if (env.shards) return { shards: env.shards };
  throw new Error(env.error);
}

// metricCache reports the metric shards the engine holds and its budget
// (internal/query.MetricCacheStatus), setting the budget first when given
// (maxBytes, maxPoints).
export function metricCache(...budget) {
  return unwrap(engine.metricCache(...budget));
}
