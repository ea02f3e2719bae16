package shard

import (
	"encoding/binary"
	"math/bits"
)

// sum256Go is SHA-256 (FIPS 180-4) in plain Go. The page's engine
// (GOOS=js) hashes with it rather than crypto/sha256, whose FIPS 140
// module brings AES, SHA-3, SHA-512, HMAC and a DRBG into the engine's
// wasm for its self-tests and policy checks: about 80 KB of a binary with
// a size budget (docs/measurements.md, issue 17). crypto/sha256 has no
// faster code for wasm, so nothing is lost there; every other build keeps
// crypto/sha256 and its assembly (sha256_other.go).
func sum256Go(b []byte) [32]byte {
	h := [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
	n := len(b)
	full := n &^ 63
	blocks256(&h, b[:full])
	var tail [128]byte
	k := copy(tail[:], b[full:])
	tail[k] = 0x80
	end := 64
	if k >= 56 {
		end = 128
	}
	binary.BigEndian.PutUint64(tail[end-8:end], uint64(n)<<3)
	blocks256(&h, tail[:end])
	var out [32]byte
	for i, v := range h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

var k256 = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// blocks256 runs the compression function over whole 64-byte blocks:
// the message schedule first, then the rounds eight at a time with the
// working variables renamed rather than moved (FIPS 180-4 6.2.2, as
// crypto/sha256's assembly does). Under wasm, where crypto/sha256 has only
// its generic loop, this is as fast or faster (BenchmarkSum256 and
// BenchmarkSum256Std: 110–155 MB/s against 93–130 on a loaded machine);
// the page hashes each evidence shard an answer needs within it.
func blocks256(dig *[8]uint32, p []byte) {
	var w [64]uint32
	h0, h1, h2, h3, h4, h5, h6, h7 := dig[0], dig[1], dig[2], dig[3], dig[4], dig[5], dig[6], dig[7]
	for len(p) >= 64 {
		q := p[:64]
		for i := range 16 {
			j := i * 4
			w[i] = uint32(q[j])<<24 | uint32(q[j+1])<<16 | uint32(q[j+2])<<8 | uint32(q[j+3])
		}
		a, b, c, d, e, f, g, h := h0, h1, h2, h3, h4, h5, h6, h7
		for i := 16; i < 64; i++ {
			v1, v2 := w[i-2], w[i-15]
			w[i] = (bits.RotateLeft32(v1, -17) ^ bits.RotateLeft32(v1, -19) ^ (v1 >> 10)) + w[i-7] + (bits.RotateLeft32(v2, -7) ^ bits.RotateLeft32(v2, -18) ^ (v2 >> 3)) + w[i-16]
		}
		for i := 0; i < 64; i += 8 {
			ww := w[i : i+8 : i+8]
			kk := k256[i : i+8 : i+8]
			_ = ww[7]
			_ = kk[7]
			h += (bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)) + (g ^ (e & (f ^ g))) + kk[0] + ww[0]
			d += h
			h += (bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)) + ((a & b) | (c & (a | b)))
			g += (bits.RotateLeft32(d, -6) ^ bits.RotateLeft32(d, -11) ^ bits.RotateLeft32(d, -25)) + (f ^ (d & (e ^ f))) + kk[1] + ww[1]
			c += g
			g += (bits.RotateLeft32(h, -2) ^ bits.RotateLeft32(h, -13) ^ bits.RotateLeft32(h, -22)) + ((h & a) | (b & (h | a)))
			f += (bits.RotateLeft32(c, -6) ^ bits.RotateLeft32(c, -11) ^ bits.RotateLeft32(c, -25)) + (e ^ (c & (d ^ e))) + kk[2] + ww[2]
			b += f
			f += (bits.RotateLeft32(g, -2) ^ bits.RotateLeft32(g, -13) ^ bits.RotateLeft32(g, -22)) + ((g & h) | (a & (g | h)))
			e += (bits.RotateLeft32(b, -6) ^ bits.RotateLeft32(b, -11) ^ bits.RotateLeft32(b, -25)) + (d ^ (b & (c ^ d))) + kk[3] + ww[3]
			a += e
			e += (bits.RotateLeft32(f, -2) ^ bits.RotateLeft32(f, -13) ^ bits.RotateLeft32(f, -22)) + ((f & g) | (h & (f | g)))
			d += (bits.RotateLeft32(a, -6) ^ bits.RotateLeft32(a, -11) ^ bits.RotateLeft32(a, -25)) + (c ^ (a & (b ^ c))) + kk[4] + ww[4]
			h += d
			d += (bits.RotateLeft32(e, -2) ^ bits.RotateLeft32(e, -13) ^ bits.RotateLeft32(e, -22)) + ((e & f) | (g & (e | f)))
			c += (bits.RotateLeft32(h, -6) ^ bits.RotateLeft32(h, -11) ^ bits.RotateLeft32(h, -25)) + (b ^ (h & (a ^ b))) + kk[5] + ww[5]
			g += c
			c += (bits.RotateLeft32(d, -2) ^ bits.RotateLeft32(d, -13) ^ bits.RotateLeft32(d, -22)) + ((d & e) | (f & (d | e)))
			b += (bits.RotateLeft32(g, -6) ^ bits.RotateLeft32(g, -11) ^ bits.RotateLeft32(g, -25)) + (a ^ (g & (h ^ a))) + kk[6] + ww[6]
			f += b
			b += (bits.RotateLeft32(c, -2) ^ bits.RotateLeft32(c, -13) ^ bits.RotateLeft32(c, -22)) + ((c & d) | (e & (c | d)))
			a += (bits.RotateLeft32(f, -6) ^ bits.RotateLeft32(f, -11) ^ bits.RotateLeft32(f, -25)) + (h ^ (f & (g ^ h))) + kk[7] + ww[7]
			e += a
			a += (bits.RotateLeft32(b, -2) ^ bits.RotateLeft32(b, -13) ^ bits.RotateLeft32(b, -22)) + ((b & c) | (d & (b | c)))
		}
		h0 += a
		h1 += b
		h2 += c
		h3 += d
		h4 += e
		h5 += f
		h6 += g
		h7 += h
		p = p[64:]
	}
	dig[0], dig[1], dig[2], dig[3], dig[4], dig[5], dig[6], dig[7] = h0, h1, h2, h3, h4, h5, h6, h7
}
