package shard

import "encoding/binary"

// The decoder's fast paths: the same values as the general loops in
// decode.go, for the commonest column shapes, with fewer operations a row.
// In the page the engine decodes a core once, with V8 still running its
// first, unoptimized code for these loops (it optimizes a wasm function
// only for its next call), so the operations a row are the decode's cost.

// denseIndexes fills out from dict when every row is present and its
// dictionary index takes one byte (a dictionary of at most 128 entries,
// as a status, a phase or a worker column has): one byte a row, read
// without a varint loop. It reports false, with out partly written, when
// some byte is not such an index; the caller then decodes the column with
// the general loop, which fills every row again and names the bad one.
func denseIndexes(out, dict []string, idx []byte) bool {
	n := byte(len(dict)) // at most 0x80, so every index below is one varint byte
	idx = idx[:len(out)]
	for i, k := range idx {
		if k >= n {
			return false
		}
		out[i] = dict[k]
	}
	return true
}

// denseVarints decodes one zigzag varint a row into out (all rows
// present), as deltas when delta: decode.go's ints loop without its
// per-row null test, on locals. It returns the offset after the last
// value, or the offset of the bad varint and its binary.Uvarint result.
func denseVarints(out []int64, b []byte, off int, delta bool) (int, int) {
	prev := int64(0)
	for i := range out {
		var u uint64
		if off < len(b) && b[off] < 0x80 {
			u = uint64(b[off])
			off++
		} else {
			var n int
			if u, n = binary.Uvarint(b[off:]); n <= 0 {
				return off, n
			}
			off += n
		}
		v := unzigzag(u)
		if delta {
			v = wrappingAdd(prev, v)
			prev = v
		}
		out[i] = v
	}
	return off, 1
}
