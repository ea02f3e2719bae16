// Loads the report's payloads. Under file:// the browser refuses fetch and
// XHR, so every payload is a classic script (detail/<sha256>.js) that hands a
// gzip payload, as base 32768 text (base32768.js), to __dsightShard(id,
// text). The same files work from
// any static host. A registry keyed by id lets several loads run at once.

import { isBase32768, base32768ToBytes, base32768Into, base32768Length } from "./base32768.js";
import { framePlan, assembleFrames } from "./framed.js";

const pending = new Map();

// A dense script carries its payload in a block comment of a function
// (a browser skips a comment about twice as fast as it scans a string
// literal: internal/shard/envelope16.go); the function's source text gives
// it back. The older envelopes pass the text itself.
window.__dsightShard = function (id, payload) {
  if (document.currentScript) ran.add(document.currentScript);
  const waiter = pending.get(id);
  if (waiter) waiter.resolve(typeof payload === "function" ? commentText(payload) : payload);
};

function commentText(fn) {
  const src = Function.prototype.toString.call(fn);
  const from = src.indexOf("/*");
  const to = src.lastIndexOf("*/");
  if (from < 0 || to < from + 2) throw new Error("a payload script's function holds no payload comment");
  return src.slice(from + 2, to);
}

// A part asked for twice at once (a prefetch and a zoom) is loaded once:
// the registry holds one waiter per id.
const inflight = new Map();

function loadScript(url, id) {
  let p = inflight.get(id);
  if (!p) {
    p = loadScriptOnce(url, id).finally(() => inflight.delete(id));
    inflight.set(id, p);
  }
  return p;
}

function loadScriptOnce(url, id) {
  return new Promise((resolve, reject) => {
    let delivered = false;
    pending.set(id, {
      resolve: (b64) => {
        delivered = true;
        pending.delete(id);
        resolve(b64);
      },
    });
    runScript(url).then(
      () => {
        if (!delivered) {
          pending.delete(id);
          reject(new Error(`${url} did not deliver shard ${id}; the report files are out of step (rebuild or republish them together).`));
        }
      },
      () => {
        pending.delete(id);
        reject(new Error(`Could not load ${url}: publish index.html together with its detail/ directory.`));
      },
    );
  });
}

// runScript runs the script at url once however many parts wait for it (a
// pack, shard.Pack16, delivers several: every waiter registered before it
// runs gets its part), and removes the element once it has run: its
// payload has been handed over, and a long session would otherwise keep
// thousands of elements and their source text.
// A script that has run (called __dsightShard) but not yet fired its load
// event can deliver nothing more: a part asked for then needs a new one.
const running = new Map(); // url → {p: promise of the script having run, el}
const ran = new WeakSet();
let scriptsLoaded = 0;
function runScript(url) {
  const r = running.get(url);
  if (r && !ran.has(r.el)) return r.p;
  const s = document.createElement("script");
  const p = new Promise((resolve, reject) => {
    s.src = url;
    s.async = true;
    s.dataset.dsightPayload = "";
    const done = (ok) => {
      if (running.get(url)?.el === s) running.delete(url);
      s.remove();
      ok ? resolve() : reject();
    };
    s.onload = () => done(true);
    s.onerror = () => done(false);
  });
  running.set(url, { p, el: s });
  document.head.appendChild(s);
  scriptsLoaded++;
  return p;
}

// scriptStatus counts the payload scripts loaded so far and those still in
// the document (none once each has run and fired its load event).
export function scriptStatus() {
  return { scriptsLoaded, scriptsInDocument: document.querySelectorAll("script[data-dsight-payload]").length };
}

// payloadBytes decodes a payload script's text: base 32768 as the writer
// writes it, or base64 as reports of format 3 did. Given into (a view of
// the part's place in its shard's one buffer, when the parts' sizes are
// known), base 32768 is decoded there and that view returned.
function payloadBytes(text, into = null) {
  if (!isBase32768(text)) return base64ToBytes(text);
  if (!into) return base32768ToBytes(text);
  if (base32768Length(text) !== into.length) throw new Error(`${base32768Length(text)} bytes, the manifest says ${into.length}`);
  base32768Into(text, into, 0);
  return into;
}

// base64ToBytes decodes a payload handed over as base64.
export function base64ToBytes(b64) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(b64);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function gunzip(parts) {
  const stream = new Blob(parts).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// loadParts loads a shard's parts, a few at a time (the browser parses
// separate scripts concurrently, but a hundred at once leave the page no
// frame to paint in), and returns their payload slices in order, each
// decoded as it arrives.
const PARTS_IN_FLIGHT = 6;

// timing, when given, sums each step's milliseconds over the parts
// (script: waiting for the script to run; decode: base 32768 to bytes;
// verify: the SHA-256 check; held: parts a prefetch already held).
// With whole, a buffer of the parts' summed sizes (identity shards: see
// wholeBuffer), each part is decoded straight into its place there; with
// dests (framed shards: framed.js), part k into dests[k] where not null.
async function loadParts(desc, { engine = false, timing = null, whole = null, dests = null } = {}) {
  const out = new Array(desc.parts.length);
  const starts = whole ? partStarts(desc) : null;
  let next = 0;
  const worker = async () => {
    while (next < desc.parts.length) {
      const k = next++;
      const p = desc.parts[k];
      const kept = prefetched.get(p.id);
      if (kept) {
        if (timing) timing.held++;
        out[k] = kept;
        continue;
      }
      let t = performance.now();
      const b64 = await loadScript(p.path, p.id);
      if (timing) timing.script_ms += performance.now() - t;
      t = performance.now();
      const bytes = decodePart(p, b64, whole ? whole.subarray(starts[k], starts[k] + p.bytes) : dests && dests[k]);
      if (timing) timing.decode_ms += performance.now() - t;
      t = performance.now();
      if (engine && !crypto.subtle) unverified.push({ part: p, bytes });
      else await verifyPart(p, bytes);
      if (timing) timing.verify_ms += performance.now() - t;
      out[k] = bytes;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARTS_IN_FLIGHT, desc.parts.length) }, worker));
  return out;
}

// decodePart decodes part p's payload text, into its place in its shard's
// buffer when into is given (see payloadBytes), naming the file when the
// text is damaged.
export function decodePart(p, text, into = null) {
  try {
    return payloadBytes(text, into);
  } catch (err) {
    throw new Error(`${p.path}: damaged payload (${err.message}); republish the report's detail/ directory`);
  }
}

// loadPartText resolves to part p's payload text, as its script hands it
// over, not yet decoded (evidenceload.js decodes it when it is wanted).
export function loadPartText(p) {
  return loadScript(p.path, p.id);
}

// Every payload is named by its SHA-256 (detail/<sha256>.js) and checked
// against that name before use, as the CLI does, so a file carrying another
// build's payload is refused rather than shown. crypto.subtle exists only
// in secure contexts (file:, https:, localhost); elsewhere the engine's
// SHA-256 (internal/shard Sum256) checks the payloads, once it runs.
const unverified = [];
let engineHash = null;
const engineHashReady = new Promise((resolve) => {
  engineHash = resolve;
});

async function sha256Hex(bytes) {
  if (crypto.subtle) {
    const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  return (await engineHashReady)(bytes);
}

export async function verifyPart(p, bytes) {
  checkHash(p, await sha256Hex(bytes));
}

function checkHash(p, got) {
  if (got !== p.id) throw new Error(`content hash mismatch: ${p.path} holds a payload whose SHA-256 is ${got}, not ${p.id}; republish the report's detail/ directory`);
}

// partStarts is each part's offset in its shard.
export function partStarts(desc) {
  const starts = [];
  let at = 0;
  for (const p of desc.parts) {
    starts.push(at);
    at += p.bytes;
  }
  return starts;
}

// wholeBuffer is the one buffer an identity shard's parts decode into,
// when the descriptor states every part's size and they add up to the
// shard's: a 7.5 MB core is then neither decoded part by part into arrays
// of its own nor copied again to be joined. Otherwise null (concat).
export function wholeBuffer(desc) {
  if (desc.encoding !== "identity" || desc.parts.length < 2) return null;
  let n = 0;
  for (const p of desc.parts) {
    if (!Number.isInteger(p.bytes) || p.bytes < 0) return null;
    n += p.bytes;
  }
  if (desc.decoded_bytes !== undefined && n !== desc.decoded_bytes) return null;
  return new Uint8Array(n);
}

// concat joins a stored (identity-encoded) shard's parts.
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// joinFrames inflates a framed payload's frames (docs/format/shard.md,
// "Framed shards"), each on its own and all at once, and joins them in
// order: the raw shard the engine decodes whole. The parts were checked
// already, and the engine checks the shard's own checksum.
async function joinFrames(payload, frames) {
  let at = 0;
  const raws = await Promise.all(frames.map((f) => {
    const stored = payload.subarray(at, (at += f.bytes));
    return f.encoding === "identity" ? stored : gunzip([stored]);
  }));
  return concat(raws);
}

// loadShard resolves to the decompressed bytes of a shard descriptor
// {id, parts: [{id, path}], decoded_bytes, encoding}, checking the decoded
// length when the descriptor states it (metric plans leave it to the
// engine, whose decoder checks every column's CRC). A shard gzip could not
// shrink is stored as is ("identity") and needs no inflating.
export async function loadShard(desc, timing = null) {
  const whole = wholeBuffer(desc);
  const plan = whole ? null : framePlan(desc);
  const parts = await loadParts(desc, { timing, whole, dests: plan && plan.dests });
  const t = performance.now();
  let bytes;
  if (whole && parts.every((p) => p.buffer === whole.buffer)) bytes = whole;
  else if (plan && parts.every((p, k) => !plan.dests[k] || p.buffer === plan.out.buffer)) {
    try {
      const done = await assembleFrames(plan, parts);
      bytes = done.bytes;
      if (timing) timing.copied_bytes = (timing.copied_bytes || 0) + done.copied;
    } catch (err) {
      throw new Error(`${desc.parts.map((p) => p.path).join(", ")}: ${err.message}; republish the report's detail/ directory`);
    }
  }
  else if (desc.encoding === "identity") bytes = parts.length === 1 ? parts[0] : concat(parts);
  else if (!desc.encoding) {
    try {
      bytes = await gunzip(parts);
    } catch (err) {
      throw new Error(`${desc.parts.map((p) => p.path).join(", ")}: ${err.message}; republish the report's detail/ directory`);
    }
  }
  else if (desc.encoding === "frames") {
    try {
      bytes = await joinFrames(parts.length === 1 ? parts[0] : concat(parts), desc.frames);
      // The parts joined, then the frames: each byte written twice more.
      if (timing) timing.copied_bytes = (timing.copied_bytes || 0) + (parts.length > 1 ? 2 : 1) * bytes.length;
    } catch (err) {
      throw new Error(`${desc.parts.map((p) => p.path).join(", ")}: ${err.message}; republish the report's detail/ directory`);
    }
  }
  else throw new Error(`shard ${desc.id}: unknown encoding ${desc.encoding}; this page is older than its report`);
  if (desc.decoded_bytes !== undefined && bytes.length !== desc.decoded_bytes) {
    throw new Error(`shard ${desc.id}: decoded ${bytes.length} bytes, expected ${desc.decoded_bytes}; republish the report's detail/ directory`);
  }
  if (timing) timing.inflate_ms += performance.now() - t;
  return bytes;
}

// loadCompressed resolves to a gzip-encoded shard's payload, its parts
// joined and verified but not inflated: for the engine to inflate
// (engine.js loadGzipShard).
export async function loadCompressed(desc, timing = null) {
  if (desc.encoding) throw new Error(`shard ${desc.id}: encoding ${desc.encoding} is not gzip`);
  const parts = await loadParts(desc, { timing });
  return parts.length === 1 ? parts[0] : concat(parts);
}

// newLoadTiming is an empty timing for loadShard.
export function newLoadTiming() {
  return { shards: 0, held: 0, script_ms: 0, decode_ms: 0, verify_ms: 0, inflate_ms: 0, give_ms: 0 };
}

// Payloads fetched ahead of need (nsightprefetch.js): verified, still
// compressed, by part id. loadParts takes a part from here instead of
// loading its script; what is kept and for how long is the prefetcher's.
const prefetched = new Map();

// prefetchParts loads a shard's parts into the prefetched payloads without
// inflating them, and resolves to their bytes.
export async function prefetchParts(desc) {
  const parts = await loadParts(desc);
  desc.parts.forEach((p, k) => prefetched.set(p.id, parts[k]));
  return parts.reduce((n, b) => n + b.length, 0);
}

// prefetchedPayload is a prefetched gzip shard's payload, its parts
// joined, or null when a part is not held.
export function prefetchedPayload(desc) {
  const parts = desc.parts.map((p) => prefetched.get(p.id));
  if (desc.encoding || parts.some((p) => !p)) return null;
  return parts.length === 1 ? parts[0] : concat(parts);
}

// dropPrefetched forgets a shard's prefetched parts.
export function dropPrefetched(desc) {
  for (const p of desc.parts) prefetched.delete(p.id);
}

// startEngine instantiates the Go wasm engine and resolves when it has
// registered window.dsightEngine. The wasm is compiled while it is still
// being decompressed (instantiateStreaming over the gunzip stream), so the
// two overlap instead of running one after the other.
// onBytes, when given, is called once the engine's bytes are loaded, as
// its compilation starts.
export async function startEngine(desc, onBytes) {
  const gz = await loadParts(desc, { engine: true });
  performance.mark("dsight:wasm-bytes");
  if (onBytes) onBytes();
  const go = new window.Go();
  const ready = new Promise((resolve) => {
    window.__dsightEngineReady = resolve;
  });
  const stream = new Blob(gz).stream().pipeThrough(new DecompressionStream("gzip"));
  const response = new Response(stream, { headers: { "Content-Type": "application/wasm" } });
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiateStreaming(response, go.importObject));
  } catch (err) {
    throw new Error(`engine ${desc.parts.map((p) => p.path).join(", ")}: ${err.message}; republish the report's detail/ directory`);
  }
  performance.mark("dsight:wasm-instantiated");
  go.run(instance).then(() => {
    window.traceExplorerError = new Error("dsight engine exited");
  });
  await ready;
  performance.mark("dsight:go-started");
  const engine = window.dsightEngine;
  engineHash((bytes) => engine.sha256(bytes));
  for (const { part, bytes } of unverified.splice(0)) await verifyPart(part, bytes);
  return engine;
}
