package synth

import "math/rand/v2"

const hexDigits = "0123456789abcdef"

// newUUID draws a version-4-shaped UUID from rng, so ids look like the ones
// AIPerf sends (uuid.uuid4()) yet repeat exactly for the same seed.
func newUUID(rng *rand.Rand) string {
	hi, lo := rng.Uint64(), rng.Uint64()
	hi = hi&^0xf000 | 0x4000     // version 4
	lo = lo&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
	var b [36]byte
	putHex(b[0:8], hi>>32, 8)
	b[8] = '-'
	putHex(b[9:13], hi>>16, 4)
	b[13] = '-'
	putHex(b[14:18], hi, 4)
	b[18] = '-'
	putHex(b[19:23], lo>>48, 4)
	b[23] = '-'
	putHex(b[24:36], lo, 12)
	return string(b[:])
}

// hex8 formats v as eight lowercase hex digits, the suffix AIPerf gives its
// worker and record-processor ids.
func hex8(v uint32) string {
	var b [8]byte
	putHex(b[:], uint64(v), 8)
	return string(b[:])
}

// putHex writes the low n hex digits of v into dst[:n], most significant first.
func putHex(dst []byte, v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		dst[i] = hexDigits[v&0xf]
		v >>= 4
	}
}
