// Decodes a payload script's base 32768 text (internal/shard.Envelope16):
// each code unit U+3000..U+AFFF carries 15 bits, most significant first; a
// last unit U+B000..U+B07F carries 7; the padding is under 8 bits, so the
// byte count follows from the units. Loading a payload is mostly the
// browser parsing its string literal, character by character: this text
// has 0.53 characters per byte where base64 has 1.33.

export function isBase32768(text) {
  return text.length > 0 && text.charCodeAt(0) >= 0x3000;
}

// base32768Length is the number of bytes text decodes to.
export function base32768Length(text) {
  const n = text.length;
  const last = n ? text.charCodeAt(n - 1) : 0;
  const tail = last >= 0xb000 && last < 0xb080;
  return Math.floor(((n - (tail ? 1 : 0)) * 15 + (tail ? 7 : 0)) / 8);
}

// FLATTEN is the unit base32768Into puts before a payload (any one does).
const FLATTEN = "\u3000";

export function base32768ToBytes(text) {
  const out = new Uint8Array(base32768Length(text));
  base32768Into(text, out, 0);
  return out;
}

// base32768Into decodes text into out from offset at (out has room for
// base32768Length(text) bytes there) and returns that length. A page
// decodes a shard's parts straight into the shard's one buffer, instead
// of into one array per part joined afterwards.
export function base32768Into(payload, out, at) {
  // The payload is a slice of its script's source, which the engine keeps
  // as an external string; reading it unit by unit took a slow path there
  // (Chromium: 97–200 ms for 7.5 MB, against 11–16 ms from an ordinary
  // string). One unit put before it makes a pair of strings that the first
  // read flattens into one sequential copy (~11 ms for 7.5 MB), and every
  // read after that is the fast one. Units are read from index 1 on.
  const text = FLATTEN + payload;
  const n = text.length;
  const size = base32768Length(payload);
  const last = n > 1 ? text.charCodeAt(n - 1) : 0;
  const tail = last >= 0xb000 && last < 0xb080;
  const full = tail ? n - 1 : n;
  // Eight units are 120 bits, fifteen whole bytes: a group is decoded with
  // fixed shifts and one range check, no branch per unit. This loop is
  // most of a payload's decoding on the page's one thread (7.5 MB for a
  // 100,000-request core).
  const groups = (full - 1) >> 3;
  let o = at;
  let i = 1;
  for (let g = 0; g < groups; g++, i += 8) {
    const v0 = text.charCodeAt(i) - 0x3000;
    const v1 = text.charCodeAt(i + 1) - 0x3000;
    const v2 = text.charCodeAt(i + 2) - 0x3000;
    const v3 = text.charCodeAt(i + 3) - 0x3000;
    const v4 = text.charCodeAt(i + 4) - 0x3000;
    const v5 = text.charCodeAt(i + 5) - 0x3000;
    const v6 = text.charCodeAt(i + 6) - 0x3000;
    const v7 = text.charCodeAt(i + 7) - 0x3000;
    if ((v0 | v1 | v2 | v3 | v4 | v5 | v6 | v7) & ~0x7fff) break; // the unit loop below names it
    out[o] = v0 >> 7;
    out[o + 1] = ((v0 << 1) | (v1 >> 14)) & 255;
    out[o + 2] = v1 >> 6;
    out[o + 3] = ((v1 << 2) | (v2 >> 13)) & 255;
    out[o + 4] = v2 >> 5;
    out[o + 5] = ((v2 << 3) | (v3 >> 12)) & 255;
    out[o + 6] = v3 >> 4;
    out[o + 7] = ((v3 << 4) | (v4 >> 11)) & 255;
    out[o + 8] = v4 >> 3;
    out[o + 9] = ((v4 << 5) | (v5 >> 10)) & 255;
    out[o + 10] = v5 >> 2;
    out[o + 11] = ((v5 << 6) | (v6 >> 9)) & 255;
    out[o + 12] = v6 >> 1;
    out[o + 13] = ((v6 << 7) | (v7 >> 8)) & 255;
    out[o + 14] = v7; // a Uint8Array keeps the low byte
    o += 15;
  }
  let acc = 0;
  let bits = 0;
  for (; i < full; i++) {
    const v = text.charCodeAt(i) - 0x3000;
    if (v >>> 0 > 0x7fff) throw new Error(`character ${i - 1} is not base 32768`);
    acc = (acc << 15) | v;
    bits += 7; // 15 in, one byte out now and (when bits reach 8) another
    out[o++] = (acc >>> bits) & 255;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >>> bits) & 255;
    }
    acc &= (1 << bits) - 1;
  }
  if (tail) {
    acc = (acc << 7) | (last - 0xb000);
    bits += 7;
    if (bits >= 8) out[o++] = (acc >>> (bits - 8)) & 255;
  }
  if (o - at !== size) throw new Error(`decoded ${o - at} bytes, expected ${size}`);
  return size;
}
