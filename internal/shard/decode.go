package shard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrUnsupportedVersion is wrapped by Decode's error for a shard written in a
// format version this reader does not know (usually a newer writer).
var ErrUnsupportedVersion = errors.New("unsupported shard format version")

// ErrCorrupt is wrapped by every other Decode error: bad magic, checksum
// mismatch, truncation, a length beyond a limit, an inconsistent value.
var ErrCorrupt = errors.New("corrupt shard")

// Smallest encodings, used to refuse a count before allocating for it.
const (
	minTableBytes  = 4 // name length, 1 name byte, rows, column count
	minColumnBytes = 6 // name length, 1 name byte, type, encoding, payload length, validity flag
)

// Decode parses a raw shard. It checks magic, version, checksum, every length
// and every limit; a truncated or corrupted input gives an error wrapping
// ErrCorrupt or ErrUnsupportedVersion, never a panic.
//
// The decoded shard may occupy DecodeBudget(len(raw)) bytes of memory.
func Decode(raw []byte) (*Shard, error) { return decode(raw, DecodeBudget(len(raw))) }

// decode is Decode with a chosen memory budget; the fuzz target passes a
// small one so that it explores instead of filling memory.
func decode(raw []byte, budget int64) (*Shard, error) {
	if err := checkFrame(raw); err != nil {
		return nil, err
	}
	body := raw[:len(raw)-trailerBytes]
	d := decoder{r: reader{b: body, off: headerFixedBytes}, budget: budget}
	return d.shard()
}

type decoder struct {
	r       reader
	decoded int64 // memory allocated so far
	budget  int64 // limit for decoded, normally DecodeBudget of the raw shard
	where   string
	// skip names the columns left undecoded (skipcolumns.go); nil: none.
	skip SkipColumn
}

func (d *decoder) fail(format string, args ...any) error {
	where := ""
	if d.where != "" {
		where = d.where + ": "
	}
	return fmt.Errorf("%w: %soffset %d: %s", ErrCorrupt, where, d.r.off, fmt.Sprintf(format, args...))
}

func (d *decoder) shard() (*Shard, error) {
	kind, err := d.name("kind")
	if err != nil {
		return nil, err
	}
	n, err := d.count("table count", maxTables, minTableBytes)
	if err != nil {
		return nil, err
	}
	s := &Shard{Kind: kind, Tables: make([]Table, n)}
	seen := make(map[string]bool, n)
	for i := range s.Tables {
		d.where = fmt.Sprintf("table %d", i)
		if err := d.table(&s.Tables[i]); err != nil {
			return nil, err
		}
		if seen[s.Tables[i].Name] {
			return nil, d.fail("duplicate table name")
		}
		seen[s.Tables[i].Name] = true
	}
	d.where = ""
	if d.r.remaining() != 0 {
		return nil, d.fail("%d trailing bytes after the last table", d.r.remaining())
	}
	return s, nil
}

func (d *decoder) table(t *Table) error {
	name, err := d.name("table name")
	if err != nil {
		return err
	}
	t.Name = name
	d.where = fmt.Sprintf("table %q", name)
	rows, err := d.uvarint("row count")
	if err != nil {
		return err
	}
	if rows > maxRows {
		return d.fail("%d rows exceeds the limit of %d", rows, maxRows)
	}
	t.Rows = int(rows)
	n, err := d.count("column count", maxColumns, minColumnBytes)
	if err != nil {
		return err
	}
	t.Columns = make([]Column, n)
	seen := make(map[string]bool, n)
	tableWhere := d.where
	var skipped []bool
	if d.skip != nil {
		skipped = make([]bool, n)
	}
	if done, err := d.columnsAtOnce(t, tableWhere, skipped); done {
		if err == nil && skipped != nil {
			dropSkipped(t, skipped)
		}
		return err
	}
	for i := range t.Columns {
		d.where = tableWhere
		c := &t.Columns[i]
		if c.Name, err = d.name("column name"); err != nil {
			return err
		}
		d.where = fmt.Sprintf("%s column %q", tableWhere, c.Name)
		if seen[c.Name] {
			return d.fail("duplicate column name")
		}
		seen[c.Name] = true
		if d.skips(t, c.Name) {
			skipped[i] = true
			if err := d.skipColumn(); err != nil {
				return err
			}
			continue
		}
		if err := d.column(c, t.Rows); err != nil {
			return err
		}
	}
	if skipped != nil {
		dropSkipped(t, skipped)
	}
	d.where = tableWhere
	return nil
}

func (d *decoder) column(c *Column, rows int) error {
	header, err := d.r.take(2)
	if err != nil {
		return d.fail("truncated column type and encoding")
	}
	c.Type = Type(header[0])
	enc := Encoding(header[1])
	if !c.Type.valid() {
		return d.fail("unknown column type %d", header[0])
	}
	if !enc.allows(c.Type) {
		return d.fail("encoding %s is not defined for %s columns", enc, c.Type)
	}
	size, err := d.uvarint("column payload length")
	if err != nil {
		return err
	}
	if size > uint64(d.r.remaining()) {
		return d.fail("column payload of %d bytes but only %d remain", size, d.r.remaining())
	}
	payloadStart := d.r.off
	end := d.r.off + int(size)
	// Read the payload through a reader that stops at its end, but keep
	// absolute offsets so errors point into the whole shard.
	outer := d.r
	d.r = reader{b: outer.b[:end], off: payloadStart}
	err = d.payload(c, enc, rows)
	if err == nil && d.r.remaining() != 0 {
		err = d.fail("%d trailing bytes in column payload", d.r.remaining())
	}
	d.r = outer
	d.r.off = end
	return err
}

func (d *decoder) payload(c *Column, enc Encoding, rows int) error {
	flag, err := d.r.byte()
	if err != nil {
		return d.fail("truncated validity flag")
	}
	present := rows
	switch flag {
	case validAll:
	case validNone:
		present = 0
	case validBitmap:
	default:
		return d.fail("unknown validity flag %d", flag)
	}
	d.decoded += decodedCost(c.Type, rows, flag != validAll)
	if d.decoded > d.budget {
		return d.fail("decoded shard would exceed %d bytes", d.budget)
	}
	switch flag {
	case validNone:
		c.Valid = make([]bool, rows)
	case validBitmap:
		if c.Valid, present, err = d.bitmapSet(rows, "validity bitmap"); err != nil {
			return err
		}
	}
	switch c.Type {
	case Int64:
		return d.ints(c, enc, rows, present)
	case Float64:
		return d.floats(c, enc, rows, present)
	case String:
		if enc == EncUUIDList {
			return d.uuidList(c, rows, present)
		}
		return d.strings(c, enc, rows, present)
	case Bool:
		return d.bools(c, rows, present)
	}
	return nil
}

// constantInt reads the one value of a constant-encoded Int64 column: a
// column with no present row has none to repeat.
func (d *decoder) constantInt(present int) (int64, error) {
	if present == 0 {
		return 0, d.fail("constant encoding without values")
	}
	u, err := d.uvarint("constant value")
	if err != nil {
		return 0, err
	}
	return unzigzag(u), nil
}

// constantFloat is constantInt for a Float64 column.
func (d *decoder) constantFloat(present int) (float64, error) {
	if present == 0 {
		return 0, d.fail("constant encoding without values")
	}
	return d.float()
}

func (d *decoder) ints(c *Column, enc Encoding, rows, present int) error {
	if enc == EncConstant {
		x, err := d.constantInt(present)
		if err != nil {
			return err
		}
		c.Ints = make([]int64, rows)
		fillPresent(c.Ints, c.Valid, x)
		return nil
	}
	if d.r.remaining() < present { // every varint takes at least one byte
		return d.fail("%d values need at least %d bytes, %d remain", present, present, d.r.remaining())
	}
	c.Ints = make([]int64, rows)
	delta := enc == EncDeltaVarint
	prev := int64(0)
	// The hot loop of most shards: varints are read straight from the
	// slice, which the compiler inlines, rather than through d.uvarint.
	b, off := d.r.b, d.r.off
	if c.Valid == nil {
		end, n := denseVarints(c.Ints, b, off, delta)
		d.r.off = end
		if n <= 0 {
			return d.fail("value: %v", varintError(n))
		}
		return nil
	}
	for i := range c.Ints {
		if c.Valid != nil && !c.Valid[i] {
			continue
		}
		u, n := binary.Uvarint(b[off:])
		if n <= 0 {
			d.r.off = off
			return d.fail("value: %v", varintError(n))
		}
		off += n
		v := unzigzag(u)
		if delta {
			v = wrappingAdd(prev, v)
			prev = v
		}
		c.Ints[i] = v
	}
	d.r.off = off
	return nil
}

func (d *decoder) floats(c *Column, enc Encoding, rows, present int) error {
	if enc == EncConstant {
		f, err := d.constantFloat(present)
		if err != nil {
			return err
		}
		c.Floats = make([]float64, rows)
		fillPresent(c.Floats, c.Valid, f)
		return nil
	}
	if d.r.remaining() != 8*present {
		return d.fail("%d values need %d bytes, %d remain", present, 8*present, d.r.remaining())
	}
	c.Floats = make([]float64, rows)
	for i := range c.Floats {
		if c.Valid != nil && !c.Valid[i] {
			continue
		}
		f, err := d.float()
		if err != nil {
			return err
		}
		c.Floats[i] = f
	}
	return nil
}

func (d *decoder) float() (float64, error) {
	b, err := d.r.take(8)
	if err != nil {
		return 0, d.fail("truncated float value")
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(b))
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, d.fail("%v", errNonFinite)
	}
	return f, nil
}

// fillPresent sets every valid row to v.
func fillPresent[T any](vals []T, valid []bool, v T) {
	for i := range vals {
		if valid == nil || valid[i] {
			vals[i] = v
		}
	}
}

// uuidList decodes one 16-byte UUID per present row.
func (d *decoder) uuidList(c *Column, rows, present int) error {
	packed, err := d.r.take(uuidBytes * present)
	if err != nil {
		return d.fail("%d UUIDs need %d bytes, %d remain", present, uuidBytes*present, d.r.remaining())
	}
	if d.decoded += int64(36 * present); d.decoded > d.budget {
		return d.fail("decoded shard would exceed %d bytes", d.budget)
	}
	vals := formatUUIDs(packed, present)
	if c.Valid == nil {
		c.Strings = vals
		return nil
	}
	c.Strings = make([]string, rows)
	next := 0
	for i := range c.Strings {
		if c.Valid[i] {
			c.Strings[i] = vals[next]
			next++
		}
	}
	return nil
}

func (d *decoder) strings(c *Column, enc Encoding, rows, present int) error {
	n, err := d.uvarint("dictionary size")
	if err != nil {
		return err
	}
	// The writer stores only strings that occur, so there are never more
	// entries than values; each entry also takes at least one byte.
	if n > uint64(present) || n > uint64(d.r.remaining()) {
		return d.fail("dictionary of %d entries for %d values", n, present)
	}
	if enc == EncUUIDDictionary {
		packed, err := d.r.take(uuidBytes * int(n))
		if err != nil {
			return d.fail("%d UUIDs need %d bytes, %d remain", n, uuidBytes*n, d.r.remaining())
		}
		if d.decoded += int64(36 * n); d.decoded > d.budget {
			return d.fail("decoded shard would exceed %d bytes", d.budget)
		}
		return d.indexes(c, formatUUIDs(packed, int(n)), rows, present)
	}
	bounds := make([]int, 2*n) // start and end of each entry in d.r.b
	total := 0
	if err := d.dictionaryTexts(int(n), func(k int, entry []byte) {
		bounds[2*k], bounds[2*k+1] = d.r.off-len(entry), d.r.off
		total += len(entry)
	}); err != nil {
		return err
	}
	d.decoded += int64(total)
	if d.decoded > d.budget {
		return d.fail("decoded shard would exceed %d bytes", d.budget)
	}
	// One backing string for the whole dictionary: one allocation, and
	// every row that repeats a value shares its bytes.
	var all strings.Builder
	all.Grow(total)
	for k := 0; k < int(n); k++ {
		all.Write(d.r.b[bounds[2*k]:bounds[2*k+1]])
	}
	backing := all.String()
	dict := make([]string, n)
	off := 0
	for k := range dict {
		size := bounds[2*k+1] - bounds[2*k]
		dict[k] = backing[off : off+size]
		off += size
	}
	return d.indexes(c, dict, rows, present)
}

// indexes reads one dictionary index per present row.
func (d *decoder) indexes(c *Column, dict []string, rows, present int) error {
	n := uint64(len(dict))
	if d.r.remaining() < present {
		return d.fail("%d indexes need at least %d bytes, %d remain", present, present, d.r.remaining())
	}
	c.Strings = make([]string, rows)
	b, off := d.r.b, d.r.off
	if len(dict) <= 0x80 && denseIndexes(c.Strings, dict, c.Valid, b[off:off+present]) {
		d.r.off = off + present
		return nil
	}
	for i := range c.Strings {
		if c.Valid != nil && !c.Valid[i] {
			continue
		}
		k, size := binary.Uvarint(b[off:])
		if size <= 0 {
			d.r.off = off
			return d.fail("dictionary index: %v", varintError(size))
		}
		if k >= n {
			d.r.off = off
			return d.fail("dictionary index %d out of range (%d entries)", k, n)
		}
		off += size
		c.Strings[i] = dict[k]
	}
	d.r.off = off
	return nil
}

func (d *decoder) bools(c *Column, rows, present int) error {
	vals, err := d.bitmap(present, "bool bitmap")
	if err != nil {
		return err
	}
	if c.Valid == nil {
		c.Bools = vals
		return nil
	}
	c.Bools = make([]bool, rows)
	next := 0
	for i := range c.Bools {
		if c.Valid[i] {
			c.Bools[i] = vals[next]
			next++
		}
	}
	return nil
}

// bitmap reads n bits, least significant first, and rejects set padding bits
// so that every bitmap has exactly one encoding.
func (d *decoder) bitmap(n int, what string) ([]bool, error) {
	out, _, err := d.bitmapSet(n, what)
	return out, err
}

// bitmapSet is bitmap also counting the bits set.
func (d *decoder) bitmapSet(n int, what string) ([]bool, int, error) {
	size := (n + 7) / 8
	b, err := d.r.take(size)
	if err != nil {
		return nil, 0, d.fail("truncated %s: %d bytes needed, %d remain", what, size, d.r.remaining())
	}
	if n&7 != 0 && b[size-1]>>(n&7) != 0 {
		return nil, 0, d.fail("%s has padding bits set", what)
	}
	out := make([]bool, n)
	return out, expandBits(out, b), nil
}

func (d *decoder) uvarint(what string) (uint64, error) {
	v, err := d.r.uvarint()
	if err != nil {
		return 0, d.fail("%s: %v", what, err)
	}
	return v, nil
}

// count reads an element count and checks it against its limit and against
// the bytes left, given the smallest possible element.
func (d *decoder) count(what string, limit, minBytes int) (int, error) {
	n, err := d.uvarint(what)
	if err != nil {
		return 0, err
	}
	if n > uint64(limit) {
		return 0, d.fail("%s %d exceeds the limit of %d", what, n, limit)
	}
	if n*uint64(minBytes) > uint64(d.r.remaining()) {
		return 0, d.fail("%s %d needs more than the %d bytes that remain", what, n, d.r.remaining())
	}
	return int(n), nil
}

func (d *decoder) name(what string) (string, error) {
	n, err := d.uvarint(what + " length")
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", d.fail("empty %s", what)
	}
	if n > maxNameBytes {
		return "", d.fail("%s of %d bytes exceeds the limit of %d", what, n, maxNameBytes)
	}
	b, err := d.r.take(int(n))
	if err != nil {
		return "", d.fail("truncated %s", what)
	}
	return string(b), nil
}

// reader walks a byte slice; off is absolute so errors can name it.
type reader struct {
	b   []byte
	off int
}

var (
	errTruncated = errors.New("truncated")
	errOverflow  = errors.New("varint overflows 64 bits")
)

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) take(n int) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, errTruncated
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errTruncated
	}
	b := r.b[r.off]
	r.off++
	return b, nil
}

func (r *reader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		return 0, varintError(n)
	}
	r.off += n
	return v, nil
}

// varintError explains a binary.Uvarint result n <= 0.
func varintError(n int) error {
	if n == 0 {
		return errTruncated
	}
	return errOverflow
}
