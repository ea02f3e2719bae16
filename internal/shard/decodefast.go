package shard

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// The decoder's fast paths: the same values as the general loops in
// decode.go, for the commonest column shapes, with fewer operations a row.
// In the page the engine decodes a core once, with V8 still running its
// first, unoptimized code for these loops (it optimizes a wasm function
// only for its next call), so the operations a row are the decode's cost.

// denseIndexes fills out from dict (the rows valid marks present, every
// row when nil) when each present row's dictionary index takes one byte
// (a dictionary of at most 128 entries, as a status, a phase or a worker
// column has): one byte a row, read without a varint loop; idx holds at
// least one byte per present row. It reports false, with out partly written, when
// some byte is not such an index; the caller then decodes the column with
// the general loop, which fills every row again and names the bad one.
func denseIndexes(out, dict []string, valid []bool, idx []byte) bool {
	n := byte(len(dict)) // at most 0x80, so every index below is one varint byte
	if valid == nil {
		idx = idx[:len(out)]
		for i, k := range idx {
			if k >= n {
				return false
			}
			out[i] = dict[k]
		}
		return true
	}
	next := 0
	for i, ok := range valid {
		if !ok {
			continue
		}
		k := idx[next]
		next++
		if k >= n {
			return false
		}
		out[i] = dict[k]
	}
	return true
}

// spreadBits holds, for each byte, its eight bits as eight bytes of 0 or 1
// (least significant bit first, in a little-endian word): one bitmap byte
// becomes eight bools with one look-up and one store.
var spreadBits = func() (t [256]uint64) {
	for b := range t {
		for i := range 8 {
			t[b] |= uint64(b>>i&1) << (8 * i)
		}
	}
	return t
}()

// expandBits sets out[i] to bit i of b (least significant first) and
// returns how many are set; b holds at least len(out) bits.
func expandBits(out []bool, b []byte) int {
	if len(out) == 0 {
		return 0
	}
	// A bool is one byte, 0 or 1: write eight at a time.
	dst := unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out))
	set := 0
	whole := len(out) / 8
	for k := range whole {
		binary.LittleEndian.PutUint64(dst[8*k:], spreadBits[b[k]])
		set += bits.OnesCount8(b[k])
	}
	for i := 8 * whole; i < len(out); i++ {
		out[i] = b[i>>3]&(1<<(i&7)) != 0
		if out[i] {
			set++
		}
	}
	return set
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
