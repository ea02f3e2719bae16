// Idle prefetch of the Nsight detail shards. While a profile is shown, the
// page's idle time fetches the compressed payloads of its chunks nearest
// the view (the engine's nsys_prefetch names them, nearest first), verifies
// them and keeps them, still compressed, under their own byte budget; a
// pack script (shard.Pack16) brings all its planned neighbours at once.
// What was fetched is then handed to the engine as spare shards, within
// its decoded-cache budget less room for the views (decodeSoon below). A
// later zoom to a window never viewed then loads no script: near the view
// it only answers, farther off it inflates and decodes. A view change or a load a view waits for cancels
// the prefetch (the next view's idle time resumes it around the new
// window); a load a question waits for, and input of any kind, pause it
// for a moment. It only listens,
// passively, and never handles an input itself.

import { ask, loadGzipShard } from "./engine.js";
import { prefetchParts, prefetchedPayload, dropPrefetched } from "./loader.js";

// PREFETCH_MAX_BYTES bounds the compressed payload bytes held ahead of
// need (reported by detailDataStatus().prefetch). 16 MiB holds every chunk
// of a profile whose chunks compress well, and 50–150 chunks of real
// profiles (100–300 KB a chunk) around the view.
export const PREFETCH_MAX_BYTES = 16 << 20;
// ?nsight-prefetch-bytes=N in the page URL lowers the budget (0 turns the
// prefetch off): it trades script loads at zoom time for memory and never
// changes an answer.
let budget = null;
function maxBytes() {
  if (budget === null) {
    const n = Number(new URLSearchParams(location.search).get("nsight-prefetch-bytes") ?? NaN);
    budget = Number.isInteger(n) && n >= 0 ? Math.min(n, PREFETCH_MAX_BYTES) : PREFETCH_MAX_BYTES;
  }
  return budget;
}
// Chunks planned per profile and view (the budget usually ends a plan
// first). A plan parses the JSON of that many descriptors, so it waits
// until views have settled for SETTLE_MS, then for idle time: a run of
// zooms plans once, after the last.
const PLAN_LIMIT = 1000; // the engine's largest limit
const SETTLE_MS = 150;
// Shards fetched at once in an idle period.
const IN_FLIGHT = 4;
// How long input pauses the prefetch, in ms.
const INPUT_PAUSE_MS = 250;

const held = new Map(); // shard id → {desc, bytes}
const st = { gen: 0, bytes: 0, fetched: 0, decoded: 0, cancelled: 0, running: false, handle: null, pausedUntil: 0, failed: 0 };

const idle = (fn) => (typeof requestIdleCallback === "function" ? requestIdleCallback(fn) : setTimeout(fn, 50));
const unidle = (h) => (typeof cancelIdleCallback === "function" ? cancelIdleCallback(h) : clearTimeout(h));

let listening = false;
function listen() {
  if (listening) return;
  listening = true;
  for (const type of ["pointerdown", "pointermove", "wheel", "keydown", "touchstart"]) window.addEventListener(type, prefetchPause, { passive: true, capture: true });
}

// prefetchAround starts prefetching the chunks of profiles nearest
// [from, to], in idle time, replacing any prefetch before it.
export function prefetchAround(profiles, from, to) {
  prefetchCancel();
  if (maxBytes() === 0) return;
  listen();
  const gen = st.gen;
  st.running = true; // planned: running until its queue is done or cancelled
  const timer = setTimeout(() => {
    if (gen === st.gen) st.handle = idle(() => plan(gen, profiles, from, to));
  }, SETTLE_MS);
  st.handle = { timer };
}

// prefetchPause holds the prefetch back for a moment: a load a view or a
// query waits for goes first, and the prefetch resumes after it.
export function prefetchPause() {
  st.pausedUntil = Math.max(st.pausedUntil, performance.now() + INPUT_PAUSE_MS);
}

// prefetchCancel stops the prefetch in progress (a fetch already started
// finishes and is kept).
export function prefetchCancel() {
  if (st.handle?.timer !== undefined) clearTimeout(st.handle.timer);
  else if (st.handle !== null) unidle(st.handle);
  st.handle = null;
  if (st.running) st.cancelled++;
  st.running = false;
  decodeQueue.length = 0;
  st.gen++;
}

function plan(gen, profiles, from, to) {
  st.handle = null;
  if (gen !== st.gen) return;
  let lists;
  try {
    lists = profiles.map((profile) => ask("nsys_prefetch", { profile, from, to, limit: PLAN_LIMIT }));
  } catch {
    st.running = false;
    st.failed++; // counted in prefetchStatus; views load their own chunks
    return;
  }
  // Nearest first across the profiles, up to the budget with what is held.
  const queue = lists.flat().sort((a, b) => a.distance - b.distance);
  const want = [];
  let room = maxBytes();
  for (const d of queue) {
    const size = held.get(d.id)?.bytes ?? d.bytes;
    if (size > room) break;
    room -= size;
    want.push(d);
  }
  const keep = new Set(want.map((d) => d.id));
  // Held chunks now farther than the budget reaches make room, farthest
  // first; chunks the engine holds are no longer named and go too.
  const evict = () => {
    for (const [id, h] of held) {
      if (keep.has(id)) continue;
      held.delete(id);
      dropPrefetched(h.desc);
      st.bytes -= h.bytes;
      return true;
    }
    return false;
  };
  const todo = want.filter((d) => !held.has(d.id));
  // Chunks held from an earlier plan are handed to the engine first.
  decodeQueue.length = 0;
  decodeQueue.push(...want.filter((d) => held.has(d.id)));
  decodeSoon();
  st.running = todo.length > 0;
  const step = async () => {
    st.handle = null;
    if (gen !== st.gen) return;
    if (performance.now() < st.pausedUntil) {
      st.handle = idle(step);
      return;
    }
    // Up to IN_FLIGHT scripts, each with every planned chunk it holds: a
    // pack (shard.Pack16) delivers its neighbours in the same script.
    const batch = [];
    const scripts = new Set();
    let planned = 0;
    let room = true;
    for (let i = 0; i < todo.length; ) {
      const d = todo[i];
      const script = d.parts[0]?.pack ? d.parts[0].path : d.id;
      if (!scripts.has(script) && scripts.size >= IN_FLIGHT) {
        i++;
        continue;
      }
      while (st.bytes + planned + d.bytes > maxBytes() && evict());
      if (!(room = st.bytes + planned + d.bytes <= maxBytes())) break;
      batch.push(...todo.splice(i, 1));
      scripts.add(script);
      planned += d.bytes;
    }
    if (!batch.length) {
      st.running = false;
      return;
    }
    await Promise.all(
      batch.map(async (d) => {
        try {
          const bytes = await prefetchParts(d);
          if (!held.has(d.id)) {
            held.set(d.id, { desc: d, bytes });
            st.bytes += bytes;
            st.fetched++;
          }
          decodeQueue.push(d);
        } catch {
          st.failed++; // the view's own load will report it
        }
      }),
    );
    if (!room) todo.length = 0; // the budget is full
    if (gen === st.gen) st.handle = idle(step);
    decodeSoon();
  };
  st.handle = idle(step);
}

// The chunks fetched are also handed to the engine in idle time, nearest
// first, as spare shards (detail_spare: the first to go when the cache
// needs room, internal/query/detailspare.go), while the engine's decoded
// cache keeps VIEW_ROOM_BYTES of its budget free for the views' own
// chunks: a zoom into them then only answers, as a warm one does.
const VIEW_ROOM_BYTES = 8 << 20;
// An idle period gives chunks while it has this many ms left.
const DECODE_MIN_IDLE_MS = 3;
const decodeQueue = [];
let decoding = null;

// decodeSoon works through decodeQueue in idle periods (a cancelled
// prefetch empties it).
function decodeSoon() {
  if (decoding !== null || !decodeQueue.length) return;
  decoding = idle((deadline) => {
    decoding = null;
    if (performance.now() < st.pausedUntil) return decodeSoon();
    const left = () => (typeof deadline?.timeRemaining === "function" ? deadline.timeRemaining() : DECODE_MIN_IDLE_MS + 1);
    while (decodeQueue.length && left() > DECODE_MIN_IDLE_MS) {
      const d = decodeQueue.shift();
      const h = held.get(d.id);
      if (!h) continue;
      try {
        const cache = ask("detail_cache", {});
        if (cache.decodedBytes + VIEW_ROOM_BYTES > cache.maxDecodedBytes) {
          decodeQueue.length = 0; // full: the rest stay compressed
          break;
        }
        const gz = prefetchedPayload(d);
        if (!gz) continue;
        loadGzipShard(d.id, gz);
        ask("detail_spare", { id: d.id });
        st.decoded++;
      } catch {
        st.failed++; // a view's own load will name the shard again
      }
    }
    decodeSoon();
  });
}

// prefetchStatus is detailDataStatus().prefetch: the compressed chunks
// held ahead of need, their bytes and budget, whether a prefetch (or its
// handing over) is under way, and counts of chunks fetched, chunks handed
// to the engine as spare, prefetches cancelled and fetches failed.
export function prefetchStatus() {
  return { chunks: held.size, bytes: st.bytes, maxBytes: maxBytes(), running: st.running || decoding !== null, fetchedChunks: st.fetched, decodedChunks: st.decoded, cancelled: st.cancelled, failed: st.failed };
}
