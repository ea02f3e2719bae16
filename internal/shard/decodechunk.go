package shard

import "encoding/binary"

// The column loops run in chunks of decodeChunkRows rows, each chunk one
// call of a function the compiler does not inline. In the page the engine
// is WebAssembly, which the browser first runs as baseline code and
// optimizes a function only for its later calls (there is no on-stack
// replacement for wasm): a loop over a whole 100,000-row column would run
// its column unoptimized, and the first columns of a core shard would all
// pay for it. In chunks, the optimized code takes over within a column
// (docs/measurements.md, issue 17: the core decode in the page).
const decodeChunkRows = 4096

// varintsChunk reads one varint per valid row of vals from b at off,
// undoing the zigzag and, with delta, the running sum that prev carries
// between chunks. It returns the new offset, or with n <= 0 the offset of
// the bad varint and binary.Uvarint's result.
//
//go:noinline
func varintsChunk(vals []int64, valid []bool, b []byte, off int, delta bool, prev *int64) (int, int) {
	p := *prev
	for i := range vals {
		if valid != nil && !valid[i] {
			continue
		}
		u, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return off, n
		}
		off += n
		v := unzigzag(u)
		if delta {
			v = wrappingAdd(p, v)
			p = v
		}
		vals[i] = v
	}
	*prev = p
	return off, 1
}

// indexesChunk reads one dictionary index per valid row of out from b at
// off. It returns the new offset, or the offset of the bad index with
// n <= 0 (binary.Uvarint's result) or the index itself when it is out of
// range (bad true).
//
//go:noinline
func indexesChunk(out []string, valid []bool, dict []string, b []byte, off int) (next int, n int, k uint64, bad bool) {
	size := uint64(len(dict))
	for i := range out {
		if valid != nil && !valid[i] {
			continue
		}
		k, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return off, n, 0, false
		}
		if k >= size {
			return off, 1, k, true
		}
		off += n
		out[i] = dict[k]
	}
	return off, 1, 0, false
}

// bitsChunk unpacks the bits of b from bit first on into out.
//
//go:noinline
func bitsChunk(out []bool, b []byte, first int) {
	for i := range out {
		j := first + i
		out[i] = b[j>>3]&(1<<(j&7)) != 0
	}
}

// chunkOf is rows [start, start+decodeChunkRows) of a column of rows rows,
// and of its validity when it has one.
func chunkOf[T any](vals []T, valid []bool, start int) ([]T, []bool) {
	end := min(start+decodeChunkRows, len(vals))
	if valid != nil {
		valid = valid[start:end]
	}
	return vals[start:end], valid
}
