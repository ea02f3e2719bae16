// Puts a framed shard (docs/format/shard.md, "Framed shards") together in
// one buffer. Its payload is the stored frames back to back, cut into
// parts; a frame stored as is ("identity") is its raw bytes, so a part
// lying wholly inside one is decoded straight into its place in the raw
// shard, and only the parts shared by small frames (the head, the trailer,
// a few gzip tables) are decoded on their own and copied out. The gzip
// frames are inflated into their places. A 100,000-request core (7.5 MB,
// nearly all identity) is then written once, where it was decoded into
// thirteen arrays, joined, and joined again after inflating.

// framePlan lays out desc's raw shard, or null when desc is not framed or
// its sizes do not add up (the page then joins the parts as before, and
// the engine's checks name the damage). dests[k] is part k's place in out
// when it lies inside one identity frame, else null.
export function framePlan(desc) {
  if (desc.encoding !== "frames" || !Array.isArray(desc.frames) || !Number.isInteger(desc.decoded_bytes)) return null;
  let stored = 0;
  let raw = 0;
  const frames = [];
  for (const f of desc.frames) {
    if (!Number.isInteger(f.bytes) || !Number.isInteger(f.decoded_bytes) || f.bytes < 0 || f.decoded_bytes < 0) return null;
    const identity = f.encoding === "identity";
    if (identity && f.bytes !== f.decoded_bytes) return null;
    frames.push({ p0: stored, p1: stored + f.bytes, r0: raw, r1: raw + f.decoded_bytes, identity });
    stored += f.bytes;
    raw += f.decoded_bytes;
  }
  if (raw !== desc.decoded_bytes) return null;
  let at = 0;
  const parts = [];
  for (const p of desc.parts) {
    if (!Number.isInteger(p.bytes) || p.bytes < 0) return null;
    parts.push({ p0: at, p1: at + p.bytes });
    at += p.bytes;
  }
  if (at !== stored) return null;
  const out = new Uint8Array(raw);
  let j = 0;
  const dests = parts.map(({ p0, p1 }) => {
    while (j < frames.length && frames[j].p1 <= p0 && frames[j].p1 < p1) j++;
    const f = frames[j];
    if (!f || !f.identity || p0 < f.p0 || p1 > f.p1) return null;
    return out.subarray(f.r0 + (p0 - f.p0), f.r0 + (p1 - f.p0));
  });
  return { out, dests, frames, parts };
}

// assembleFrames completes plan's raw shard from the decoded parts
// (decoded[k] is dests[k] itself where it had one) and resolves to
// {bytes, copied}: copied counts the bytes written a second time. The
// parts were checked already; the engine checks the shard's checksum.
export async function assembleFrames(plan, decoded) {
  const { out, dests, frames, parts } = plan;
  let copied = 0;
  const inflating = [];
  for (const f of frames) {
    // The pieces of f's stored bytes held by parts decoded on their own,
    // each with its offset in f.
    const pieces = [];
    const offsets = [];
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k];
      if (p.p1 <= f.p0 || p.p0 >= f.p1 || p.p0 === p.p1) continue;
      if (dests[k]) {
        if (decoded[k].buffer !== out.buffer) throw new Error("a part was not decoded into its place");
        continue;
      }
      const from = Math.max(f.p0, p.p0);
      pieces.push(decoded[k].subarray(from - p.p0, Math.min(f.p1, p.p1) - p.p0));
      offsets.push(from - f.p0);
    }
    if (f.identity) {
      pieces.forEach((piece, i) => out.set(piece, f.r0 + offsets[i]));
      copied += pieces.reduce((n, piece) => n + piece.length, 0);
      continue;
    }
    copied += f.r1 - f.r0; // the stream's chunks are copied into place
    inflating.push(inflateInto(pieces, out, f.r0, f.r1));
  }
  await Promise.all(inflating);
  return { bytes: out, copied };
}

// inflateInto inflates one gzip member, given as its pieces in order, into
// out[r0:r1], refusing any other length.
async function inflateInto(pieces, out, r0, r1) {
  const reader = new Blob(pieces).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  let at = r0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > r1) throw new Error(`a frame inflates past its ${r1 - r0} bytes`);
    out.set(value, at);
    at += value.length;
  }
  if (at !== r1) throw new Error(`a frame inflated to ${at - r0} bytes, expected ${r1 - r0}`);
}
