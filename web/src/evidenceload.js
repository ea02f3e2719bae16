// Loads a traced report's server evidence: several independent evidence
// shards (manifest entry.evidence.shards, docs/format/evidence.md), their
// scripts a few at a time.
//
// What the synchronous API needs at ready is every shard's bytes within
// reach, not every shard decoded, checked and in the engine: the engine
// asks for the chunks an answer needs (wasm wantEvidence,
// query.Engine.SetEvidenceSource), and want decodes, checks (SHA-256 by
// the engine, in the same call) and gives the shards holding them before
// the answer is made. So the page opens its API once every evidence
// script has run and handed its text over (load); decoding, checking and
// giving all of them first took about a third of the page's one thread
// before ready on 100,000 traced requests (docs/measurements.md, issue
// 17). The shards no answer asked for are given after ready, one a task,
// checked by crypto.subtle (giveRest). No answer is made from a shard
// before its parts are checked against their names.

import { loadPartText, decodePart, verifyPart, wholeBuffer, partStarts } from "./loader.js";

// SCRIPTS_IN_FLIGHT bounds the evidence scripts loading at once: enough
// to keep the browser's script parsing busy, few enough to leave the page
// frames to paint in.
const SCRIPTS_IN_FLIGHT = 6;

// VERIFY_AHEAD bounds the evidence shards giveRest holds decoded while
// crypto.subtle checks them: about a MiB.
const VERIFY_AHEAD = 8;

// yieldToPage resolves in a task of its own, after the events and frames
// already waiting, without the 4 ms a chain of nested setTimeout calls
// is held to.
function yieldToPage() {
  return new Promise((resolve) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => {
      c.port1.close();
      resolve();
    };
    c.port2.postMessage(null);
  });
}

// shardsOfTable expands the boot record's table of evidence shards
// (internal/report bootEvidence) into the manifest's descriptors: shard k
// is one packed part named as the shard, stored as is, holding chunks[k]
// chunks from the sum of those before it.
function shardsOfTable(t) {
  const n = t.id.length;
  if (t.bytes.length !== n || t.path.length !== n || t.chunks.length !== n) throw new Error("the boot record's evidence shard table has columns of different lengths; rebuild the report");
  let first = 0;
  return t.id.map((id, k) => {
    const path = t.paths[t.path[k]];
    if (path === undefined) throw new Error(`the boot record's evidence shard ${id} names no pack script; rebuild the report`);
    const bytes = t.bytes[k];
    const s = { id, bytes, decoded_bytes: bytes, encoding: "identity", parts: [{ id, path, bytes, pack: true }], first_chunk: first, chunks: t.chunks[k] };
    first += t.chunks[k];
    return s;
  });
}

// EvidenceHold holds the evidence descriptor ev's payload texts until
// each shard is given to the engine through give(bytes).
export class EvidenceHold {
  constructor(ev, give) {
    // A report whose evidence is one shard (format 4) holds every chunk in it.
    if (ev.shard_table) this.shards = shardsOfTable(ev.shard_table);
    else this.shards = ev.shards && ev.shards.length ? ev.shards : [{ ...ev, first_chunk: 0, chunks: Infinity }];
    this.give = give;
    this.texts = new Array(this.shards.length).fill(null); // per shard, its parts' texts until given
    this.given = new Array(this.shards.length).fill(false);
    this.failed = new Array(this.shards.length).fill(""); // why a shard could not be given
  }

  // load loads every shard's scripts and keeps their texts; timing
  // (loader.js newLoadTiming) sums the wait for the scripts.
  async load(timing = null) {
    // The shards a pack script holds (shard.Pack16) are asked for together,
    // before it runs: a part asked for once its script has run would load
    // the script again.
    const scripts = [];
    this.shards.forEach((s, k) => {
      const last = scripts.at(-1);
      if (last && s.parts[0].pack && this.shards[last[0]].parts[0].path === s.parts[0].path) last.push(k);
      else scripts.push([k]);
    });
    const hold = async (k) => {
      const texts = await Promise.all(this.shards[k].parts.map(loadPartText));
      if (!this.given[k]) this.texts[k] = texts;
    };
    let next = 0;
    const worker = async () => {
      while (next < scripts.length) {
        const t = performance.now();
        await Promise.all(scripts[next++].map(hold));
        if (timing) timing.script_ms += performance.now() - t;
      }
    };
    await Promise.all(Array.from({ length: Math.min(SCRIPTS_IN_FLIGHT, scripts.length) }, worker));
  }

  // want gives, within the call, the shards holding chunks whose texts are
  // held, and answers "" or why one could not be given (the engine fails
  // the answer with it). A shard whose scripts have not run yet is left
  // to the engine to call pending.
  want(chunks) {
    for (const c of chunks) {
      const k = this.shardOf(c);
      if (k < 0 || this.given[k]) continue;
      if (this.failed[k]) return this.failed[k];
      if (!this.texts[k]) continue;
      try {
        // The engine checks the parts' hashes as it takes the bytes (give
        // with the parts): one copy into it, and no checksum pass after.
        // Each part's size is its decoded view's: a one-part shard's
        // descriptor need not state it.
        const { bytes, views } = this.decode(k);
        this.hand(k, bytes, this.shards[k].parts.map((p, j) => ({ id: p.id, path: p.path, bytes: views[j].length })));
      } catch (err) {
        return (this.failed[k] = err.message);
      }
    }
    return "";
  }

  // giveRest gives, after ready, every shard no answer has asked for, in
  // order, checked by crypto.subtle; timing sums decode_ms, verify_ms (the
  // wait for a check) and give_ms. Up to VERIFY_AHEAD shards are decoded
  // and being checked at once, off the page's thread, so the page's thread
  // does only the decoding and giving, a shard a task; one check awaited
  // at a time had it wait on each, and the last shard went in ~5 s after
  // ready on 100,000 traced requests. It rejects with the first shard found
  // damaged (answers needing that shard fail with the same message).
  async giveRest(timing = null) {
    const ahead = []; // {k, bytes, checked}, in shard order
    let next = 0;
    const decodeNext = () => {
      for (; next < this.shards.length; next++) {
        const k = next;
        if (this.given[k]) continue;
        if (this.failed[k]) throw new Error(this.failed[k]);
        if (!this.texts[k]) throw new Error(`evidence shard ${this.shards[k].id} was not loaded`);
        const t = performance.now();
        let decoded;
        try {
          decoded = this.decode(k);
        } catch (err) {
          this.failed[k] = err.message;
          throw err;
        }
        if (timing) timing.decode_ms += performance.now() - t;
        const checked = Promise.all(decoded.views.map((v, j) => verifyPart(this.shards[k].parts[j], v)));
        checked.catch(() => {}); // awaited in shard order below
        ahead.push({ k, bytes: decoded.bytes, checked });
        next++;
        return;
      }
    };
    for (;;) {
      while (ahead.length < VERIFY_AHEAD && next < this.shards.length) decodeNext();
      const head = ahead.shift();
      if (!head) return;
      const t = performance.now();
      try {
        await head.checked;
      } catch (err) {
        this.failed[head.k] = err.message;
        throw err;
      }
      if (timing) timing.verify_ms += performance.now() - t;
      if (!this.given[head.k]) {
        // An answer may have wanted it meanwhile, and given it.
        const t2 = performance.now();
        this.hand(head.k, head.bytes);
        if (timing) {
          timing.give_ms += performance.now() - t2;
          timing.shards++;
        }
      }
      await yieldToPage(); // the page's events come first
    }
  }

  // shardOf is the index of the shard holding chunk c, or -1.
  shardOf(c) {
    let lo = 0;
    let hi = this.shards.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = this.shards[mid];
      if (c < s.first_chunk) hi = mid - 1;
      else if (c >= s.first_chunk + s.chunks) lo = mid + 1;
      else return mid;
    }
    return -1;
  }

  // decode decodes shard k's held texts into its bytes, and the views of
  // each part's bytes in them for their checks.
  decode(k) {
    const desc = this.shards[k];
    const whole = desc.parts.length > 1 ? wholeBuffer(desc) : null;
    if (desc.parts.length > 1 && !whole) throw new Error(`evidence shard ${desc.id}: its parts do not state their sizes; this page is older than its report`);
    const starts = whole ? partStarts(desc) : null;
    const views = desc.parts.map((p, j) => decodePart(p, this.texts[k][j], whole ? whole.subarray(starts[j], starts[j] + p.bytes) : null));
    const bytes = whole || views[0];
    if (desc.decoded_bytes !== undefined && bytes.length !== desc.decoded_bytes) {
      throw new Error(`evidence shard ${desc.id}: decoded ${bytes.length} bytes, expected ${desc.decoded_bytes}; republish the report's detail/ directory`);
    }
    return { bytes, views };
  }

  // hand gives shard k's bytes; with its parts the engine checks them.
  hand(k, bytes, parts) {
    this.give(bytes, parts);
    this.given[k] = true;
    this.texts[k] = null;
  }
}
