package sqlstore

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// nvtxRow encodes nvtx_ranges rows straight into one buffer: the generic
// record keeps every value three ways for its order check and copies the
// row once more to join header and body, which for 10M ranges cost more
// than the b-tree pages themselves. The bytes are the ones record gives
// (TestNVTXRowEncodesAsRecord); the key order is checked on the typed key.
type nvtxRow struct {
	intSmall bool
	buf      [nvtxRowMax + 8]byte
	// The previous row's key, for the order check.
	started bool
	prev    nvtxKey
}

type nvtxKey struct {
	profile int64
	bucket  int64
	start   float64
	rowid   int64
}

// compare orders keys as SQLite does (no NaN reaches it). cmp.Or would
// compare all four columns every row; the start alone decides most.
func (a nvtxKey) compare(b nvtxKey) int {
	switch {
	case a.profile != b.profile:
		return cmp.Compare(a.profile, b.profile)
	case a.bucket != b.bucket:
		return cmp.Compare(a.bucket, b.bucket)
	case a.start != b.start:
		return cmp.Compare(a.start, b.start)
	}
	return cmp.Compare(a.rowid, b.rowid)
}

// nvtxRowMax is the longest record encode makes: a header byte per column
// and its size, then at most 8 bytes a value.
const nvtxRowMax = 1 + 8 + 8*8

// encode is the row's record, valid until the next encode; the key must
// be above the previous row's. The stored columns are the key's, then
// name, thread, duration_ns and end_exact ("end" is computed, nvtxend.go).
// end_exact is NULL unless the computed end would differ from end, and a
// NULL last column is left out of the record, as SQLite reads a record
// shorter than its table (a table grown by ALTER TABLE ADD COLUMN has
// them): the missing columns are NULL.
func (e *nvtxRow) encode(k nvtxKey, name, thread, durNS int64, end float64) ([]byte, error) {
	return e.appendRow(e.buf[:0], k, name, thread, durNS, end, !endIsComputed(k.start, end, durNS))
}

// appendRow appends the record encode makes to dst, exact saying whether
// it keeps end in end_exact (the caller has checked the computed end, and
// may know it cheaper than endIsComputed). The encoder writes straight
// into the batch a row goes out in: a copy of each row from a buffer of
// its own was a tenth of the encoding.
func (e *nvtxRow) appendRow(dst []byte, k nvtxKey, name, thread, durNS int64, end float64, exact bool) ([]byte, error) {
	if math.IsNaN(k.start) {
		return nil, errors.New("a NaN key")
	}
	if e.started && e.prev.compare(k) >= 0 {
		return nil, errors.New("rows out of key order or a repeated key")
	}
	e.started, e.prev = true, k
	// Serial types below 128 take a byte each: the header is a byte per
	// column and its size, itself a one-byte varint.
	cols := 7
	if exact {
		cols = 8
	}
	// Room for the longest row and a spare word: each value is stored as
	// a whole big-endian word and cut to its width (putInt).
	dst = slices.Grow(dst, nvtxRowMax+8)
	at := len(dst)
	b := dst[:at+1+cols]
	b[at] = byte(1 + cols)
	h := b[at:]
	b = e.putInt(b, h, 1, k.profile)
	b = e.putInt(b, h, 2, k.bucket)
	b = putReal(b, h, 3, k.start)
	b = e.putInt(b, h, 4, k.rowid)
	b = e.putInt(b, h, 5, name)
	b = e.putInt(b, h, 6, thread)
	b = e.putInt(b, h, 7, durNS)
	if exact {
		b = putReal(b, h, 8, end)
	}
	return b, nil
}

// intWidths maps the bytes a two's-complement integer needs to its serial
// type and stored width: 5 and 6 bytes are stored in 6, 7 and 8 in 8.
var intWidths = [9]struct{ typ, n byte }{{1, 1}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 6}, {5, 6}, {6, 8}, {6, 8}}

// putInt sets header byte at of h to v's serial type (record.int's
// choice) and appends its body bytes to b, whose capacity holds 8 more.
func (e *nvtxRow) putInt(b, h []byte, at int, v int64) []byte {
	if e.intSmall && uint64(v) <= 1 {
		h[at] = byte(8 + v)
		return b
	}
	// The bytes v needs with its sign bit.
	w := intWidths[(bits.Len64(uint64(v^(v>>63)))+8)/8]
	h[at] = w.typ
	l := len(b)
	binary.BigEndian.PutUint64(b[l:l+8], uint64(v)<<(64-8*uint(w.n)))
	return b[:l+int(w.n)]
}

// putReal sets header byte at of h to 7 and appends v's 8 bytes.
func putReal(b, h []byte, at int, v float64) []byte {
	h[at] = 7
	return binary.BigEndian.AppendUint64(b, math.Float64bits(v))
}

// addOrdered appends one encoded row whose key order the caller has
// checked (nvtxRow does); a tree takes rows through add or addOrdered,
// never both.
func (t *bulkTree) addOrdered(rec []byte) error {
	if t.err != nil {
		return t.err
	}
	if len(rec) > t.maxLocal {
		return fmt.Errorf("a %d-byte row would overflow its page", len(rec))
	}
	t.rows++
	t.err = t.insert(0, rec, 0)
	return t.err
}
