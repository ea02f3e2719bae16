package tachometer

import (
	"encoding/binary"
	"errors"
	"math"
)

// hybrid decodes Parquet's RLE/bit-packed hybrid encoding (definition
// levels and dictionary indices) a run at a time: a repeated run comes back
// whole, so a caller codes a run of one dictionary index at once instead of
// a value per row. Its work is bounded by the length of its stream; it
// never panics on a damaged one.
type hybrid struct {
	b     []byte
	width int
	// The current run: rle holds one value repeated left times; otherwise
	// packed holds the bytes of a bit-packed run, pos its next value.
	rle    bool
	left   int
	value  uint32
	packed []byte
	pos    int
}

var errHybridEnd = errors.New("ends before the values its page declares")

func (h *hybrid) init(b []byte, width int) {
	*h = hybrid{b: b, width: width}
}

// next returns a run of n (1 ≤ n ≤ limit) equal values. ok is false when
// the stream holds no more values.
func (h *hybrid) next(limit int) (v uint32, n int, ok bool) {
	if h.left == 0 && !h.header() {
		return 0, 0, false
	}
	if h.rle {
		n = min(h.left, limit)
		h.left -= n
		return h.value, n, true
	}
	// Bit-packed: consecutive equal values still come back as one run.
	v = h.unpack(h.pos)
	n = 1
	for n < limit && n < h.left && h.unpack(h.pos+n) == v {
		n++
	}
	h.pos += n
	h.left -= n
	return v, n, true
}

// header starts the next run; false at the end of the stream. A run
// header of zero values, or a bit-packed run with no whole group left, ends
// the stream as the Arrow reader ends it (pagecheck.go's countRLE agrees).
func (h *hybrid) header() bool {
	for len(h.b) > 0 {
		hd, k := binary.Uvarint(h.b)
		if k <= 0 {
			break
		}
		h.b = h.b[k:]
		if hd&1 == 1 {
			groups := hd >> 1
			if groups == 0 || groups > uint64(len(h.b)) {
				break
			}
			nbytes := groups * uint64(h.width)
			if nbytes > uint64(len(h.b)) {
				groups = uint64(len(h.b)) / uint64(max(h.width, 1))
				nbytes = groups * uint64(h.width)
				if groups == 0 {
					continue // no whole value: countRLE reads on from the next header
				}
			}
			h.rle, h.packed, h.pos, h.left = false, h.b[:nbytes], 0, int(groups*8)
			h.b = h.b[nbytes:]
			return true
		}
		run := hd >> 1
		byteWidth := (h.width + 7) / 8
		if run == 0 || len(h.b) < byteWidth {
			break
		}
		var v uint32
		for i := 0; i < byteWidth; i++ {
			v |= uint32(h.b[i]) << (8 * i)
		}
		h.b = h.b[byteWidth:]
		// A page holds at most 2³¹ values; a longer run is only read that far.
		h.rle, h.value, h.left = true, v, int(min(run, math.MaxInt32))
		return true
	}
	h.b = nil
	return false
}

// unpack returns value i of the current bit-packed run (little-endian bit
// order, width ≤ 32 bits).
func (h *hybrid) unpack(i int) uint32 {
	if h.width == 0 {
		return 0
	}
	bit := i * h.width
	var acc uint64
	for k, at := 0, bit/8; k < 5 && at+k < len(h.packed); k++ {
		acc |= uint64(h.packed[at+k]) << (8 * k)
	}
	return uint32(acc>>(bit%8)) & uint32(uint64(1)<<h.width-1)
}
