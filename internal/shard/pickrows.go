package shard

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"sort"
)

// RowPick keeps of a table only the rows its key column matches. A
// one-request question (dsight query request ID) so decodes of a
// 100,000-row request table the one row it prints: the key column and the
// others are walked in place, checked value by value, and only the kept
// rows' values are stored, so the process touches no memory per row.
//
// Exactly one of Text, Of and Rows is set.
type RowPick struct {
	Key string // the column matched (none for Rows)
	// Text keeps the rows whose String key equals it (never a null row).
	Text string
	// Of keeps the rows whose Int64 key holds a row kept of table Of, a
	// table picked earlier in the same decode (a reference to it).
	Of string
	// Rows keeps these rows (ascending row numbers, each in the table).
	Rows []int
}

// PickRows names the pick of a table, nil to decode it whole.
type PickRows func(table string) *RowPick

// DecodeTableFramesPicking is DecodeTableFramesSkipping keeping, of each
// table pick names, only the rows it matches, in row order. kept[i] lists
// the rows kept of table i, as row numbers of the whole table (nil for a
// table decoded whole).
func DecodeTableFramesPicking(frames [][]byte, skip SkipColumn, pick PickRows) (tables []Table, kept [][]int, err error) {
	tables = make([]Table, len(frames))
	kept = make([][]int, len(frames))
	seen := make(map[string]bool, len(frames))
	picked := map[string][]int{}
	var decoded int64
	for i, b := range frames {
		if len(b) > maxRawBytes {
			return nil, nil, fmt.Errorf("%w: table frame %d: %d bytes exceeds the limit of %d", ErrCorrupt, i, len(b), maxRawBytes)
		}
		d := decoder{r: reader{b: b}, decoded: decoded, budget: maxDecodedBytes, where: fmt.Sprintf("table frame %d", i), skip: skip}
		name, err := d.peekFrameName()
		if err != nil {
			return nil, nil, err
		}
		if p := pick(name); p != nil {
			kept[i], err = d.pickedTable(&tables[i], p, picked)
			picked[name] = kept[i]
		} else {
			err = d.table(&tables[i])
		}
		if err != nil {
			return nil, nil, err
		}
		if d.r.remaining() != 0 {
			return nil, nil, d.fail("%d trailing bytes after the table", d.r.remaining())
		}
		if seen[tables[i].Name] {
			return nil, nil, d.fail("duplicate table name")
		}
		seen[tables[i].Name] = true
		decoded = d.decoded
	}
	return tables, kept, nil
}

// peekFrameName reads a table frame's name and steps back.
func (d *decoder) peekFrameName() (string, error) {
	start := d.r.off
	name, err := d.name("table name")
	d.r.off = start
	return name, err
}

// pickedColumn is one column's header and where its payload lies.
type pickedColumn struct {
	name       string
	typ        Type
	enc        Encoding
	start, end int
}

// pickedTable decodes table t keeping the rows p matches; picked holds the
// rows kept of the tables picked before.
func (d *decoder) pickedTable(t *Table, p *RowPick, picked map[string][]int) ([]int, error) {
	name, err := d.name("table name")
	if err != nil {
		return nil, err
	}
	t.Name = name
	d.where = fmt.Sprintf("table %q", name)
	rows, err := d.uvarint("row count")
	if err != nil {
		return nil, err
	}
	if rows > maxRows {
		return nil, d.fail("%d rows exceeds the limit of %d", rows, maxRows)
	}
	n, err := d.count("column count", maxColumns, minColumnBytes)
	if err != nil {
		return nil, err
	}
	cols := make([]pickedColumn, n)
	seen := make(map[string]bool, n)
	key := -1
	tableWhere := d.where
	for i := range cols {
		d.where = tableWhere
		c := &cols[i]
		if c.name, err = d.name("column name"); err != nil {
			return nil, err
		}
		d.where = fmt.Sprintf("%s column %q", tableWhere, c.name)
		if seen[c.name] {
			return nil, d.fail("duplicate column name")
		}
		seen[c.name] = true
		header, err := d.r.take(2)
		if err != nil {
			return nil, d.fail("truncated column type and encoding")
		}
		c.typ, c.enc = Type(header[0]), Encoding(header[1])
		if !c.typ.valid() {
			return nil, d.fail("unknown column type %d", header[0])
		}
		if !c.enc.allows(c.typ) {
			return nil, d.fail("encoding %s is not defined for %s columns", c.enc, c.typ)
		}
		size, err := d.uvarint("column payload length")
		if err != nil {
			return nil, err
		}
		if size == 0 || size > uint64(d.r.remaining()) {
			return nil, d.fail("column payload of %d bytes but only %d remain", size, d.r.remaining())
		}
		c.start, c.end = d.r.off, d.r.off+int(size)
		d.r.off = c.end
		if c.name == p.Key {
			key = i
		}
	}
	end := d.r.off
	d.where = tableWhere
	if key < 0 && p.Rows == nil {
		return nil, d.fail("no key column %s to pick rows by", p.Key)
	}
	var keep []int
	if p.Rows != nil {
		for k, i := range p.Rows {
			if i < 0 || i >= int(rows) || (k > 0 && i <= p.Rows[k-1]) {
				return nil, d.fail("row %d picked of %d rows, or out of order", i, rows)
			}
		}
		keep = p.Rows
	} else if p.Of != "" {
		of, ok := picked[p.Of]
		if !ok {
			return nil, d.fail("rows picked by table %s, not read before it", p.Of)
		}
		keep, err = d.keyInts(cols[key], int(rows), of)
	} else {
		keep, err = d.keyText(cols[key], int(rows), p.Text)
	}
	if err != nil {
		return nil, err
	}
	t.Rows = len(keep)
	for _, c := range cols {
		if d.skips(t, c.name) {
			continue
		}
		col := Column{Name: c.name, Type: c.typ}
		d.where = fmt.Sprintf("%s column %q", tableWhere, c.name)
		if err := d.pickColumn(&col, c, int(rows), keep); err != nil {
			return nil, err
		}
		t.Columns = append(t.Columns, col)
	}
	d.where = tableWhere
	d.r.off = end
	return keep, nil
}

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

// keyText lists the rows whose String column c equals text.
func (d *decoder) keyText(c pickedColumn, rows int, text string) ([]int, error) {
	if c.typ != String {
		return nil, d.fail("key column %s is %v, not string", c.name, c.typ)
	}
	outer := d.r
	defer func() { d.r = outer }()
	v, err := d.validity(c, rows)
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
	for k := 0; k < int(n); k++ {
		size := uint64(uuidBytes)
		if enc == EncDictionary {
			if size, err = d.uvarint("dictionary entry length"); err != nil {
				return 0, err
			}
			if size > maxStringBytes {
				return 0, d.fail("dictionary entry of %d bytes exceeds the limit of %d", size, maxStringBytes)
			}
		}
		entry, err := d.r.take(int(size))
		if err != nil {
			return 0, d.fail("truncated dictionary entry: %d bytes needed, %d remain", size, d.r.remaining())
		}
		f(k, entry)
	}
	return int(n), nil
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
		if v.present == 0 {
			return d.fail("constant encoding without values")
		}
		u, err := d.uvarint("constant value")
		if err != nil {
			return err
		}
		if d.r.remaining() != 0 {
			return d.fail("%d trailing bytes in column payload", d.r.remaining())
		}
		for i := 0; i < rows; i++ {
			if v.has(i) {
				f(i, unzigzag(u))
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
	if c.typ != Int64 {
		return nil, d.fail("key column %s is %v, not int64", c.name, c.typ)
	}
	outer := d.r
	defer func() { d.r = outer }()
	v, err := d.validity(c, rows)
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
		if v.present == 0 {
			return d.fail("constant encoding without values")
		}
		f, err := d.float()
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
		if v.present == 0 {
			return d.fail("constant encoding without values")
		}
		u, err := d.uvarint("constant value")
		if err != nil {
			return err
		}
		for j, k := range vals {
			if k >= 0 {
				out[j] = unzigzag(u)
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
