package shard

import (
	"encoding/binary"
	"math"
)

// The kept rows' values of a picked column, read stepping over the rows
// before them and none after the last (DecodeTableFramesPicking).

// pickColumn decodes of column c the rows keep (ascending) into col,
// checking the whole payload as the decoder does.
func (d *decoder) pickColumn(col *Column, c pickedColumn, rows int, keep []int) error {
	outer := d.r
	defer func() { d.r = outer }()
	v, err := d.validity(c, rows)
	if err != nil {
		return err
	}
	if d.decoded += decodedCost(c.typ, len(keep), v.flag != validAll); d.decoded > d.budget {
		return d.fail("decoded shard would exceed %d bytes", d.budget)
	}
	if v.flag != validAll {
		col.Valid = make([]bool, len(keep))
		for j, i := range keep {
			col.Valid[j] = v.has(i)
		}
	}
	// vals[j] is kept row j's value index, -1 for a null.
	vals := v.indexes(keep)
	switch c.typ {
	case Int64:
		col.Ints = make([]int64, len(keep))
		return d.intsAt(v, c.enc, vals, col.Ints)
	case Float64:
		col.Floats = make([]float64, len(keep))
		return d.pickFloats(col, v, c.enc, vals)
	case Bool:
		col.Bools = make([]bool, len(keep))
		size := (v.present + 7) / 8
		b, err := d.r.take(size)
		if err != nil || d.r.remaining() != 0 {
			return d.fail("bool bitmap of %d bytes needed, %d stored", size, c.end-c.start)
		}
		if v.present&7 != 0 && b[size-1]>>(v.present&7) != 0 {
			return d.fail("bool bitmap has padding bits set")
		}
		for j, k := range vals {
			if k >= 0 {
				col.Bools[j] = b[k>>3]>>(k&7)&1 == 1
			}
		}
		return nil
	}
	col.Strings = make([]string, len(keep))
	if c.enc == EncUUIDList {
		packed, err := d.r.take(uuidBytes * v.present)
		if err != nil || d.r.remaining() != 0 {
			return d.fail("%d UUIDs need %d bytes, %d are stored", v.present, uuidBytes*v.present, c.end-c.start)
		}
		for j, k := range vals {
			if k >= 0 {
				col.Strings[j] = formatUUIDs(packed[k*uuidBytes:(k+1)*uuidBytes], 1)[0]
			}
		}
		return nil
	}
	// The dictionary comes before the indexes: read the kept rows'
	// indexes, then walk the dictionary again for their entries.
	dictStart := d.r.off
	entries, err := d.dictionaryEntries(c.enc, v.present, func(int, []byte) {})
	if err != nil {
		return err
	}
	index := make([]int, len(keep))
	if err := d.indexesAt(vals, entries, index); err != nil {
		return err
	}
	// The kept rows by entry: a dictionary may hold an entry per row.
	byEntry := make(map[int][]int, len(keep))
	for j := range keep {
		if vals[j] >= 0 {
			byEntry[index[j]] = append(byEntry[index[j]], j)
		}
	}
	d.r.off = dictStart
	_, err = d.dictionaryEntries(c.enc, v.present, func(k int, entry []byte) {
		js, ok := byEntry[k]
		if !ok {
			return
		}
		text := string(entry)
		if c.enc == EncUUIDDictionary {
			text = formatUUIDs(entry, 1)[0]
		}
		for _, j := range js {
			col.Strings[j] = text
		}
	})
	return err
}

// pickFloats reads the values of value indexes at (-1: a null) of a
// Float64 column.
func (d *decoder) pickFloats(col *Column, v presence, enc Encoding, at []int) error {
	if enc == EncConstant {
		f, err := d.constantFloat(v.present)
		if err != nil {
			return err
		}
		if d.r.remaining() != 0 {
			return d.fail("%d trailing bytes in column payload", d.r.remaining())
		}
		for j, k := range at {
			if k >= 0 {
				col.Floats[j] = f
			}
		}
		return nil
	}
	if d.r.remaining() != 8*v.present {
		return d.fail("%d values need %d bytes, %d remain", v.present, 8*v.present, d.r.remaining())
	}
	// Every stored value is checked finite, as the decoder checks them.
	vals := d.r.b[d.r.off:]
	for k := 0; k < v.present; k++ {
		f := math.Float64frombits(binary.LittleEndian.Uint64(vals[8*k:]))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.r.off += 8 * k
			return d.fail("%v", errNonFinite)
		}
	}
	for j, k := range at {
		if k >= 0 {
			col.Floats[j] = math.Float64frombits(binary.LittleEndian.Uint64(vals[8*k:]))
		}
	}
	d.r.off = len(d.r.b)
	return nil
}

// The kept rows' values are read stepping over the values before them and
// none after the last: the other rows' values are never stored, and, as a
// skipped column's (SkipColumn), checked only for their payload's length.

// skipVarints steps over k varints from off (each ends at a byte below
// 0x80), returning where the next begins, or -1 when b ends first.
func skipVarints(b []byte, off, k int) int {
	for ; k > 0; off++ {
		if off >= len(b) {
			return -1
		}
		if b[off] < 0x80 {
			k--
		}
	}
	return off
}

// intsAt reads the Int64 values of value indexes vals (ascending, -1 for a
// null, left zero) into out.
func (d *decoder) intsAt(v presence, enc Encoding, vals []int, out []int64) error {
	if enc == EncConstant {
		x, err := d.constantInt(v.present)
		if err != nil {
			return err
		}
		for j, k := range vals {
			if k >= 0 {
				out[j] = x
			}
		}
		return nil
	}
	b, off, at, sum := d.r.b, d.r.off, 0, int64(0)
	for j, k := range vals {
		if k < 0 {
			continue
		}
		if enc == EncDeltaVarint {
			// A delta's value is the sum of every step before it.
			for ; at <= k; at++ {
				u, n := binary.Uvarint(b[off:])
				if n <= 0 {
					d.r.off = off
					return d.fail("value: %v", varintError(n))
				}
				off += n
				sum = wrappingAdd(sum, unzigzag(u))
			}
			out[j] = sum
			continue
		}
		if off = skipVarints(b, off, k-at); off < 0 {
			return d.fail("%d values but the payload ends first", v.present)
		}
		u, n := binary.Uvarint(b[off:])
		if n <= 0 {
			d.r.off = off
			return d.fail("value: %v", varintError(n))
		}
		off, at = off+n, k+1
		out[j] = unzigzag(u)
	}
	d.r.off = off
	return nil
}

// indexesAt reads the dictionary indexes of value indexes vals (as
// intsAt) into out, checking each against the entries.
func (d *decoder) indexesAt(vals []int, entries int, out []int) error {
	b, off, at := d.r.b, d.r.off, 0
	for j, k := range vals {
		if k < 0 {
			continue
		}
		if off = skipVarints(b, off, k-at); off < 0 {
			return d.fail("dictionary indexes end before value %d", k)
		}
		x, n := binary.Uvarint(b[off:])
		if n <= 0 {
			d.r.off = off
			return d.fail("dictionary index: %v", varintError(n))
		}
		if x >= uint64(entries) {
			d.r.off = off
			return d.fail("dictionary index %d out of range (%d entries)", x, entries)
		}
		off, at = off+n, k+1
		out[j] = int(x)
	}
	d.r.off = off
	return nil
}
