// Decodes a payload script's base 32768 text (internal/shard.Envelope16):
// each code unit U+3000..U+AFFF carries 15 bits, most significant first; a
// last unit U+B000..U+B07F carries 7; the padding is under 8 bits, so the
// byte count follows from the units. Loading a payload is mostly the
// browser parsing its string literal, character by character: this text
// has 0.53 characters per byte where base64 has 1.33.

export function isBase32768(text) {
  return text.length > 0 && text.charCodeAt(0) >= 0x3000;
}

export function base32768ToBytes(text) {
  const n = text.length;
  const last = n ? text.charCodeAt(n - 1) : 0;
  const tail = last >= 0xb000 && last < 0xb080;
  const out = new Uint8Array(Math.floor(((n - (tail ? 1 : 0)) * 15 + (tail ? 7 : 0)) / 8));
  const full = tail ? n - 1 : n;
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < full; i++) {
    const v = text.charCodeAt(i) - 0x3000;
    if (v >>> 0 > 0x7fff) throw new Error(`character ${i} is not base 32768`);
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
  if (o !== out.length) throw new Error(`decoded ${o} bytes, expected ${out.length}`);
  return out;
}
