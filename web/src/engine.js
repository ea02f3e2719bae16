// The page's one door into the Go engine (internal/query). Every question is
// one synchronous call through handle (JSON in, JSON or bytes out); shards go
// in through give. Arguments are sent as given: the engine checks them
// against its op table, and a failure throws an Error carrying the engine's
// code (bad_args, not_found, shards_needed with .shards, evidence_pending,
// internal), on which callers branch, never on the message.

let engine = null;

export function attach(e) {
  // Every call through handle or give asks for one idle-time look at the
  // engine's heap (collectWhenIdle).
  engine = Object.create(e);
  engine.handle = (...args) => {
    collectWhenIdle();
    return e.handle(...args);
  };
  engine.give = (...args) => {
    collectWhenIdle();
    return e.give(...args);
  };
}

// collectWhenIdle has the engine collect, if its heap has used half its
// headroom, in the page's idle time after its calls (wasm/collector.go):
// a cycle the runtime starts itself marks the whole heap inside the call
// that crossed its goal, ~45 ms on 100,000 traced requests.
let idleAsked = false;
function collectWhenIdle() {
  if (idleAsked || typeof engine.collect !== "function") return;
  idleAsked = true;
  const run = () => {
    idleAsked = false;
    engine.collect();
  };
  if (typeof requestIdleCallback === "function") requestIdleCallback(run, { timeout: 1000 });
  else setTimeout(run, 50);
}

// memory is the engine's collector counts (wasm/collector.go):
// {cycles, heap, goal}.
export function memory() {
  const [cycles, heap, goal] = engine.memory();
  return { cycles, heap, goal };
}

// load hands over the core shard and resolves to the summary.
export function load(bytes) {
  return unwrap(engine.give("core", bytes));
}

// settle tells the engine the page is ready (wasm/collector.go): its
// collector, off since the core came in, is back on.
export function settle() {
  if (engine && typeof engine.settle === "function") engine.settle();
}

export function ask(op, args) {
  return unwrap(engine.handle(request(op, args)));
}

// askKept answers as ask does, and keeps the answer's text: copy() parses
// it again into a value the caller owns, at about a third of the cost of
// structuredClone on a request's answer (~45 KB of JSON on a traced run,
// docs/measurements.md, issue 17).
export function askKept(op, args) {
  const text = engine.handle(request(op, args));
  return { result: unwrap(text), copy: () => unwrap(text) };
}

function request(op, args) {
  const clean = {};
  for (const [k, v] of Object.entries(args || {})) if (v !== undefined && v !== null) clean[k] = v;
  return JSON.stringify({ op, args: clean });
}

// EngineError is a failure the engine answered, with its code.
export class EngineError extends Error {
  constructor(env) {
    super(env.error);
    this.code = env.code;
    if (env.shards) this.shards = env.shards;
  }
}

function unwrap(text) {
  const env = JSON.parse(text);
  if (!env.ok) throw new EngineError(env);
  return env.result === undefined ? null : env.result;
}

// loadEvidence hands the engine the decoded server evidence shard. Given
// the shard's parts ({id, path, bytes}, the manifest's), the engine checks
// each part's SHA-256 against its name itself, on the one copy it decodes
// (wasm/main.go give), and the call throws "content hash mismatch" naming
// the file of a part that fails; without them the bytes must have been
// checked already.
export function loadEvidence(bytes, parts) {
  unwrap(parts ? engine.give("evidence", bytes, JSON.stringify(parts.map(({ id, path, bytes }) => ({ id, path, bytes })))) : engine.give("evidence", bytes));
}

// wantEvidence lets the engine ask for the evidence chunks an answer needs:
// fn(chunks) gives the shards holding them (loadEvidence) before it
// returns "", or returns why it could not (evidenceload.js).
export function wantEvidence(fn) {
  unwrap(engine.wantEvidence(fn));
}

// loadShard hands the engine a decoded metric shard named by its id.
export function loadShard(id, bytes) {
  unwrap(engine.give(id, bytes));
}

// loadGzipShard hands the engine a shard's gzip payload, which the engine
// inflates itself (wasm/main.go give).
export function loadGzipShard(id, gz) {
  unwrap(engine.give(id, gz, "gzip"));
}

// plot asks for a metric chart's columns (internal/query.Plot.Encode): a
// Uint8Array of float64s, or {shards} naming the metric shards to load
// first; other failures throw. The answer is written into into when it has
// room (a view on it is returned); otherwise it is a view on a new, larger
// buffer, to pass as into next time.
export function plot(args, into) {
  const q = request("plot", args);
  const r = into ? engine.handle(q, into) : engine.handle(q);
  if (typeof r === "number") return into.subarray(0, r);
  if (typeof r !== "string") return r;
  const env = JSON.parse(r);
  if (env.code === "shards_needed") return { shards: env.shards };
  throw new EngineError(env);
}

// askBinary asks a binary op (internal/query's Binary ops): its bytes as a
// Uint8Array, or {shards} naming the shards to load first; other failures
// throw.
export function askBinary(op, args) {
  const r = engine.handle(request(op, args));
  if (typeof r !== "string") return r;
  const env = JSON.parse(r);
  if (env.code === "shards_needed") return { shards: env.shards };
  throw new EngineError(env);
}

// metricCache reports the metric shards the engine holds and its budget
// (internal/query.MetricCacheStatus), setting the budget first when given
// (maxBytes, maxPoints).
export function metricCache(maxBytes, maxPoints) {
  return ask("metric_cache", { max_bytes: maxBytes, max_points: maxPoints });
}

let table = null;

// opArg is the engine's declaration of argument name of operation op (the
// "ops" answer, read once): its type, default and bounds.
export function opArg(op, name) {
  if (!table) table = new Map(ask("ops", {}).map((o) => [o.name, o]));
  const o = table.get(op);
  const a = o && o.args.find((x) => x.name === name);
  if (!a) throw new Error(`the engine declares no argument ${name} of ${op}`);
  return a;
}

// askBytes asks a binary op other than plot: a Uint8Array, or an
// EngineError thrown (shards_needed carries .shards). Given into with room,
// the answer is written there (as plot's).
export function askBytes(op, args, into) {
  const r = into ? engine.handle(request(op, args), into) : engine.handle(request(op, args));
  if (typeof r === "number") return into.subarray(0, r);
  if (typeof r !== "string") return r;
  throw new EngineError(JSON.parse(r));
}
