package shard

import (
	"encoding/binary"
	"math/bits"
)

// A picked column's validity: which rows hold a value, and where a
// row's value stands among the stored ones (DecodeTableFramesPicking).

// presence is a column's validity: which rows hold a value, and the value
// index of a row (values are stored for present rows only).
type presence struct {
	flag    byte
	bitmap  []byte
	present int
}

// validity reads the flag (and bitmap) at the start of column c's payload
// and leaves d at its values, reading up to c.end.
func (d *decoder) validity(c pickedColumn, rows int) (presence, error) {
	d.r = reader{b: d.r.b[:c.end], off: c.start}
	flag, err := d.r.byte()
	if err != nil {
		return presence{}, d.fail("truncated validity flag")
	}
	v := presence{flag: flag, present: rows}
	switch flag {
	case validAll:
	case validNone:
		v.present = 0
	case validBitmap:
		size := (rows + 7) / 8
		b, err := d.r.take(size)
		if err != nil {
			return v, d.fail("truncated validity bitmap: %d bytes needed, %d remain", size, d.r.remaining())
		}
		if rows&7 != 0 && b[size-1]>>(rows&7) != 0 {
			return v, d.fail("validity bitmap has padding bits set")
		}
		v.bitmap, v.present = b, popcount(b)
	default:
		return v, d.fail("unknown validity flag %d", flag)
	}
	return v, nil
}

// has says whether row i holds a value.
func (v presence) has(i int) bool {
	switch v.flag {
	case validAll:
		return true
	case validNone:
		return false
	}
	return v.bitmap[i>>3]>>(i&7)&1 == 1
}

// indexes are the value indexes of rows keep (ascending), -1 for a null
// row, counted in one pass over the bitmap.
func (v presence) indexes(keep []int) []int {
	out := make([]int, len(keep))
	counted, upTo := 0, 0 // present rows among the first upTo bytes' rows
	for j, i := range keep {
		if !v.has(i) {
			out[j] = -1
			continue
		}
		if v.flag == validAll {
			out[j] = i
			continue
		}
		counted += popcount(v.bitmap[upTo : i>>3])
		upTo = i >> 3
		out[j] = counted + bits.OnesCount8(v.bitmap[upTo]&(1<<(i&7)-1))
	}
	return out
}

func popcount(b []byte) int {
	n := 0
	for len(b) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, x := range b {
		n += bits.OnesCount8(x)
	}
	return n
}

// rowOf is the row holding value index k, the inverse of index.
func (v presence) rowOf(k int) int {
	if v.flag == validAll {
		return k
	}
	for i := 0; ; i++ {
		if v.has(i) {
			if k == 0 {
				return i
			}
			k--
		}
	}
}
