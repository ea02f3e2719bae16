package shard

import (
	"bytes"
	"sort"
)

// The rows a pick keeps: those whose key column matches (RowPick.Text,
// RowPick.Of), read to the payload's end and checked as the decoder
// checks it.

// keyPresence checks that key column c is of type typ and reads its
// validity, leaving d at its values.
func (d *decoder) keyPresence(c pickedColumn, rows int, typ Type) (presence, error) {
	if c.typ != typ {
		return presence{}, d.fail("key column %s is %v, not %v", c.name, c.typ, typ)
	}
	return d.validity(c, rows)
}

// keyText lists the rows whose String column c equals text.
func (d *decoder) keyText(c pickedColumn, rows int, text string) ([]int, error) {
	outer := d.r
	defer func() { d.r = outer }()
	v, err := d.keyPresence(c, rows, String)
	if err != nil {
		return nil, err
	}
	switch c.enc {
	case EncUUIDList:
		packed, err := d.r.take(uuidBytes * v.present)
		if err != nil || d.r.remaining() != 0 {
			return nil, d.fail("%d UUIDs need %d bytes, %d are stored", v.present, uuidBytes*v.present, c.end-c.start)
		}
		if !isUUID(text) {
			return []int{}, nil
		}
		target := appendUUID(nil, text)
		var keep []int
		for k := 0; k < v.present; k++ {
			if bytes.Equal(packed[k*uuidBytes:(k+1)*uuidBytes], target) {
				keep = append(keep, v.rowOf(k))
			}
		}
		return nonNilRows(keep), nil
	case EncUUIDDictionary, EncDictionary:
		// The writer stores a value once, but a dictionary may repeat
		// one: every entry equal to text matches.
		var want []uint64 // a bit per entry
		match := []byte(text)
		if c.enc == EncUUIDDictionary {
			match = nil // no UUID entry spells text otherwise
			if isUUID(text) {
				match = appendUUID(nil, text)
			}
		}
		entries, err := d.dictionaryEntries(c.enc, v.present, func(k int, entry []byte) {
			if match != nil && bytes.Equal(entry, match) {
				if want == nil {
					want = make([]uint64, v.present/64+1)
				}
				want[k/64] |= 1 << (k % 64)
			}
		})
		if err != nil {
			return nil, err
		}
		var keep []int
		err = d.eachIndex(v, rows, entries, func(row, k int) {
			if want != nil && want[k/64]>>(k%64)&1 == 1 {
				keep = append(keep, row)
			}
		})
		return nonNilRows(keep), err
	}
	return nil, d.fail("encoding %s is not defined for string columns", c.enc)
}

func nonNilRows(rows []int) []int {
	if rows == nil {
		return []int{}
	}
	return rows
}

// dictionaryEntries walks a dictionary's entries, checking each as the
// decoder does, and leaves d at the indexes; it returns the entry count.
func (d *decoder) dictionaryEntries(enc Encoding, present int, f func(k int, entry []byte)) (int, error) {
	n, err := d.uvarint("dictionary size")
	if err != nil {
		return 0, err
	}
	if n > uint64(present) || n > uint64(d.r.remaining()) {
		return 0, d.fail("dictionary of %d entries for %d values", n, present)
	}
	if enc == EncDictionary {
		return int(n), d.dictionaryTexts(int(n), f)
	}
	for k := 0; k < int(n); k++ {
		entry, err := d.r.take(uuidBytes)
		if err != nil {
			return 0, d.fail("truncated dictionary entry: %d bytes needed, %d remain", uuidBytes, d.r.remaining())
		}
		f(k, entry)
	}
	return int(n), nil
}

// dictionaryTexts walks n length-prefixed dictionary entries, each checked
// against the limit and the payload, calling f with each entry's bytes
// (d.r is just past them): the whole decode and the row pick read a text
// dictionary through it.
func (d *decoder) dictionaryTexts(n int, f func(k int, entry []byte)) error {
	for k := 0; k < n; k++ {
		size, err := d.uvarint("dictionary entry length")
		if err != nil {
			return err
		}
		if size > maxStringBytes {
			return d.fail("dictionary entry of %d bytes exceeds the limit of %d", size, maxStringBytes)
		}
		entry, err := d.r.take(int(size))
		if err != nil {
			return d.fail("truncated dictionary entry: %d bytes needed, %d remain", size, d.r.remaining())
		}
		f(k, entry)
	}
	return nil
}

// eachIndex reads every present row's dictionary index, to the payload's
// end, calling f with the row and its index.
func (d *decoder) eachIndex(v presence, rows, entries int, f func(row, k int)) error {
	for i := 0; i < rows; i++ {
		if !v.has(i) {
			continue
		}
		k, err := d.r.uvarint()
		if err != nil {
			return d.fail("dictionary index: %v", err)
		}
		if k >= uint64(entries) {
			return d.fail("dictionary index %d out of range (%d entries)", k, entries)
		}
		f(i, int(k))
	}
	if d.r.remaining() != 0 {
		return d.fail("%d trailing bytes in column payload", d.r.remaining())
	}
	return nil
}

// eachInt reads every present row's value of an Int64 column, to the
// payload's end, calling f with the row and its value.
func (d *decoder) eachInt(v presence, enc Encoding, rows int, f func(row int, x int64)) error {
	if enc == EncConstant {
		x, err := d.constantInt(v.present)
		if err != nil {
			return err
		}
		if d.r.remaining() != 0 {
			return d.fail("%d trailing bytes in column payload", d.r.remaining())
		}
		for i := 0; i < rows; i++ {
			if v.has(i) {
				f(i, x)
			}
		}
		return nil
	}
	prev := int64(0)
	for i := 0; i < rows; i++ {
		if !v.has(i) {
			continue
		}
		u, err := d.r.uvarint()
		if err != nil {
			return d.fail("value: %v", err)
		}
		x := unzigzag(u)
		if enc == EncDeltaVarint {
			x = wrappingAdd(prev, x)
			prev = x
		}
		f(i, x)
	}
	if d.r.remaining() != 0 {
		return d.fail("%d trailing bytes in column payload", d.r.remaining())
	}
	return nil
}

// keyInts lists the rows whose Int64 column c holds one of of (ascending).
func (d *decoder) keyInts(c pickedColumn, rows int, of []int) ([]int, error) {
	outer := d.r
	defer func() { d.r = outer }()
	v, err := d.keyPresence(c, rows, Int64)
	if err != nil {
		return nil, err
	}
	keep := []int{}
	err = d.eachInt(v, c.enc, rows, func(row int, x int64) {
		if k := sort.SearchInts(of, int(x)); k < len(of) && int64(of[k]) == x {
			keep = append(keep, row)
		}
	})
	return keep, err
}
