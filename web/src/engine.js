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

// loadShard hands the engine a decoded metric shard named by its id.
export function loadShard(id, bytes) {
  unwrap(engine.loadShard(id, bytes));
}
