package catalog

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// packedInts holds a column of int64s in memory as offsets from a line
// (base + slope·row, the slope 0 or the column's mean step) in the same
// number of bits (frame of reference), with the few rows whose offset
// needs more bits than the rest kept aside as patches. A decoded range
// chunk holds its columns this way: starts 0.9 s apart fit 30 bits, or
// ~20 off their mean step; three names 2; a contiguous row id none, where
// an int64 took 64 each. Every value reads back exactly, any int64
// included: the arithmetic wraps the same way both ways.
type packedInts struct {
	base, slope int64
	width       uint   // bits an offset takes: 0..maxPackedWidth
	mask        uint64 // 1<<width - 1; with patches, an offset equal to it is patched
	// bits holds the offsets, little-endian, row after row, then 8 bytes
	// of padding so that any row reads as one unaligned uint64.
	bits []byte
	// wide holds the values themselves when packing would not save bytes.
	wide []int64
	// patchRow (ascending) and patchVal are the patched rows.
	patchRow []int32
	patchVal []int64
}

// maxPackedWidth keeps an offset and its bit shift within one uint64 read.
const maxPackedWidth = 56

// patchBytes is what one patched row costs: its row and its value.
const patchBytes = 12

// packInts packs vals along the line that takes the fewer bytes.
func packInts(vals []int64) packedInts {
	n := len(vals)
	if n == 0 {
		return packedInts{bits: make([]byte, 8)}
	}
	best := packPlan(vals, 0)
	if n > 1 {
		if slope := (vals[n-1] - vals[0]) / int64(n-1); slope != 0 {
			if l := packPlan(vals, slope); l.cost < best.cost {
				best = l
			}
		}
	}
	if best.width == 64 {
		return packedInts{wide: slices.Clone(vals)}
	}
	p := packedInts{base: best.base, slope: best.slope, width: best.width, mask: 1<<best.width - 1, bits: make([]byte, (n*int(best.width)+7)/8+8)}
	for i, v := range vals {
		off := uint64(v - best.slope*int64(i) - best.base)
		if best.patched && off >= p.mask {
			p.patchRow, p.patchVal = append(p.patchRow, int32(i)), append(p.patchVal, v)
			off = p.mask
		}
		bit := uint(i) * p.width
		at := p.bits[bit>>3:]
		binary.LittleEndian.PutUint64(at, binary.LittleEndian.Uint64(at)|off<<(bit&7))
	}
	return p
}

// packing is the cheapest layout of a column along one line: its base,
// its width (64: the values as they are), whether rows are patched, and
// its bytes.
type packing struct {
	base, slope int64
	width       uint
	patched     bool
	cost        int
}

func packPlan(vals []int64, slope int64) packing {
	n := len(vals)
	base := vals[0]
	for i, v := range vals {
		base = min(base, v-slope*int64(i))
	}
	// byLen[l] counts the rows whose offset + 1 takes l bits: a row needs
	// a patch at width w when its offset is ≥ 1<<w - 1, that is when
	// offset + 1 takes more than w bits (65 stands for an offset of
	// 1<<64 - 1, whose + 1 overflows).
	var byLen [66]int
	var maxOff uint64
	for i, v := range vals {
		off := uint64(v - slope*int64(i) - base)
		maxOff = max(maxOff, off)
		l := 65
		if off != ^uint64(0) {
			l = bits.Len64(off + 1)
		}
		byLen[l]++
	}
	best := packing{base: base, slope: slope, width: 64, cost: 8 * n}
	if maxOff == 0 {
		best.width, best.cost = 0, 0
		return best
	}
	// A width that holds every offset needs no patch (the mask is then an
	// ordinary offset); a narrower one patches the rows above it.
	patched := n - byLen[0] - byLen[1] // offset+1 longer than 1 bit
	for w := uint(1); w <= maxPackedWidth; w++ {
		cost, patch := (n*int(w)+7)/8, uint(bits.Len64(maxOff)) > w
		if patch {
			cost += patchBytes * patched
		}
		if cost < best.cost {
			best.width, best.patched, best.cost = w, patch, cost
		}
		patched -= byLen[w+1]
	}
	return best
}

// at reads row i.
func (p *packedInts) at(i int) int64 {
	if p.wide != nil {
		return p.wide[i]
	}
	bit := uint(i) * p.width
	off := binary.LittleEndian.Uint64(p.bits[bit>>3:]) >> (bit & 7) & p.mask
	if off == p.mask && len(p.patchRow) > 0 {
		if k, ok := slices.BinarySearch(p.patchRow, int32(i)); ok {
			return p.patchVal[k]
		}
	}
	return p.base + p.slope*int64(i) + int64(off)
}

// expand writes rows [lo, hi) into dst (grown as needed) and returns it:
// the loops over every row of a chunk read plain int64s, a block at a
// time.
func (p *packedInts) expand(dst []int64, lo, hi int) []int64 {
	dst = slices.Grow(dst[:0], hi-lo)[:hi-lo]
	if p.wide != nil {
		copy(dst, p.wide[lo:hi])
		return dst
	}
	w, mask, slope, b := p.width, p.mask, p.slope, p.bits
	line := p.base + slope*int64(lo)
	for i := range dst {
		bit := uint(lo+i) * w
		dst[i] = line + int64(binary.LittleEndian.Uint64(b[bit>>3:])>>(bit&7)&mask)
		line += slope
	}
	k, _ := slices.BinarySearch(p.patchRow, int32(lo))
	for ; k < len(p.patchRow) && int(p.patchRow[k]) < hi; k++ {
		dst[int(p.patchRow[k])-lo] = p.patchVal[k]
	}
	return dst
}

// heldBytes is the memory the column holds.
func (p *packedInts) heldBytes() int64 {
	return int64(len(p.bits) + 8*len(p.wide) + patchBytes*len(p.patchRow) + 64)
}
