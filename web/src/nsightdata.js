// Nsight detail data: the engine names the detail shards an answer needs
// (code shards_needed); they are fetched as detail scripts, handed over,
// and the question asked again. The engine keeps them in its own cache,
// bounded by decoded bytes (detail_cache; detailDataStatus()).

import { ask, askBytes, loadShard as give, loadGzipShard } from "./engine.js";
import { loadShard as fetchShard, loadCompressed, scriptStatus } from "./loader.js";
import { prefetchPause, prefetchStatus } from "./nsightprefetch.js";

// Each round loads every shard the answer named, so two rounds suffice;
// a third covers a shard dropped by a concurrent question.
const ROUNDS = 3;

// timing (loader.js newLoadTiming), when given, gathers where the shard
// loads' time went.
export async function askDetail(op, args, { signal, ask: asker = ask, onLoad, timing = null } = {}) {
  for (let round = 1; ; round++) {
    if (signal?.aborted) throw cancelled();
    try {
      return asker(op, args);
    } catch (err) {
      if (round >= ROUNDS || err.code !== "shards_needed") throw err;
      // A newer view change makes this load stale: it ends at once, and
      // the shards still arriving are never handed over, so they cost the
      // engine neither decoding nor cache.
      loads.pending++;
      onLoad?.(err.shards);
      // A load a question waits for goes before any prefetch.
      prefetchPause();
      let bytes;
      try {
        if (timing) timing.shards += err.shards.length;
        bytes = await abortable(Promise.all(err.shards.map((d) => (inflatesInEngine(d) ? loadCompressed(d, timing) : fetchShard(d, timing)))), signal);
      } catch (e) {
        if (e.name === "AbortError") loads.cancelled++;
        throw e;
      } finally {
        loads.pending--;
      }
      const t = performance.now();
      err.shards.forEach((d, k) => (inflatesInEngine(d) ? loadGzipShard(d.id, bytes[k]) : give(d.id, bytes[k])));
      if (timing) timing.give_ms += performance.now() - t;
    }
  }
}

// A gzip shard up to ENGINE_INFLATE_MAX compressed bytes is inflated by
// the engine in one synchronous call (its give_ms); a larger one by the
// browser's DecompressionStream (inflate_ms), native code that wins once
// the inflate itself outweighs the stream's task hops. The detail chunks
// of generated profiles (2–40 KB) all go to the engine.
const ENGINE_INFLATE_MAX = 128 << 10;
const inflatesInEngine = (d) => !d.encoding && d.bytes <= ENGINE_INFLATE_MAX;

// Detail loads in flight and those a newer view change cancelled
// (reported by detailDataStatus beside the engine's cache).
const loads = { pending: 0, cancelled: 0 };

// abortable settles with p, or rejects when signal aborts first.
function abortable(p, signal) {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    const stop = () => reject(cancelled());
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

function cancelled() {
  return new DOMException("a newer view change replaced this Nsight load", "AbortError");
}

// nsysView asks the engine's nsys_view (internal/query/nsysview.go) and
// decodes its bytes: {header, rows}, rows a Float64Array of
// NSYS_ROW_FLOATS per drawn range (start, end, name, thread, lane). Given
// into (a Uint8Array the caller no longer draws from), the answer is
// written there when it fits; a fresh page-sized array costs a page
// fault per 4 KB written, more than the answer itself.
export const NSYS_ROW_FLOATS = 5;

export async function nsysView(args, signal, onLoad, into, timing = null) {
  let answerMs = 0; // the engine's time, without the shard loads
  const timed = (op, a) => {
    const t = performance.now();
    try {
      return askBytes(op, a, into);
    } finally {
      answerMs += performance.now() - t;
    }
  };
  const bytes = await askDetail("nsys_view", args, { signal, ask: timed, onLoad, timing });
  const t = performance.now();
  const v = decodeView(bytes);
  v.answerMs = answerMs + performance.now() - t;
  return v;
}

// decodeView splits nsys_view's bytes into {header, rows, buffer}.
export function decodeView(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + n)));
  const at = Math.ceil((4 + n) / 8) * 8;
  const count = (bytes.byteLength - at) / 8;
  const rows = (bytes.byteOffset + at) % 8 === 0 ? new Float64Array(bytes.buffer, bytes.byteOffset + at, count) : new Float64Array(bytes.slice(at).buffer);
  return { header, rows, answerMs: 0, buffer: new Uint8Array(bytes.buffer) };
}

// browserNsys renames the CLI's global_tid to the browser API's globalTid
// (reference §8 and §10 spell it differently); the value stays a decimal
// string, since Nsight's packed ids exceed 2^53.
export function browserNsys(answer) {
  answer.items = answer.items.map(({ global_tid, ...rest }) => ({ ...rest, globalTid: global_tid }));
  return answer;
}

export function detailDataStatus() {
  return { ...ask("detail_cache", {}), pendingLoads: loads.pending, cancelledLoads: loads.cancelled, ...scriptStatus(), prefetch: prefetchStatus() };
}
