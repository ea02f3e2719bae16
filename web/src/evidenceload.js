// Loads a traced report's server evidence: several independent evidence
// shards (manifest entry.evidence.shards, docs/format/evidence.md), a few
// at a time, each handed to the engine as soon as it is decoded and
// verified. So the browser parses the next scripts while the engine takes
// the last one, instead of loading everything, joining it into one buffer
// and handing that over at the end.

import { loadShard } from "./loader.js";

// SHARDS_IN_FLIGHT bounds the evidence scripts loading at once (one part
// each): enough to keep the browser's script parsing busy, few enough to
// leave the page frames to paint in.
const SHARDS_IN_FLIGHT = 6;

// loadEvidenceShards loads every shard of the evidence descriptor ev and
// calls give(bytes) for each, in arrival order; timing (loader.js
// newLoadTiming) sums each step over the shards, give_ms the engine's.
export async function loadEvidenceShards(ev, give, timing = null) {
  const shards = ev.shards && ev.shards.length ? ev.shards : [ev];
  let next = 0;
  const worker = async () => {
    while (next < shards.length) {
      const bytes = await loadShard(shards[next++], timing);
      const t = performance.now();
      give(bytes);
      if (timing) {
        timing.give_ms += performance.now() - t;
        timing.shards++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(SHARDS_IN_FLIGHT, shards.length) }, worker));
}
