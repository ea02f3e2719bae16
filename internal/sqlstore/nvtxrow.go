package sqlstore

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// nvtxRow encodes nvtx_ranges rows straight into one buffer: the generic
// record keeps every value three ways for its order check and copies the
// row once more to join header and body, which for 10M ranges cost more
// than the b-tree pages themselves. The bytes are the ones record gives
// (TestNVTXRowEncodesAsRecord); the key order is checked on the typed key.
type nvtxRow struct {
	intSmall bool
	buf      [1 + 8 + 8*8]byte
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

// encode is the row's record, valid until the next encode; the key must
// be above the previous row's. The stored columns are the key's, then
// name, thread, duration_ns and end_exact ("end" is computed, nvtxend.go).
// end_exact is NULL unless the computed end would differ from end, and a
// NULL last column is left out of the record, as SQLite reads a record
// shorter than its table (a table grown by ALTER TABLE ADD COLUMN has
// them): the missing columns are NULL.
func (e *nvtxRow) encode(k nvtxKey, name, thread, durNS int64, end float64) ([]byte, error) {
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
	exact := !endIsComputed(k.start, end, durNS)
	if exact {
		cols = 8
	}
	b := e.buf[:1+cols]
	b[0] = byte(1 + cols)
	b = e.int(b, 1, k.profile)
	b = e.int(b, 2, k.bucket)
	b = real64(b, 3, k.start)
	b = e.int(b, 4, k.rowid)
	b = e.int(b, 5, name)
	b = e.int(b, 6, thread)
	b = e.int(b, 7, durNS)
	if exact {
		b = real64(b, 8, end)
	}
	return b, nil
}

// int sets header byte at to v's serial type (record.int's choice) and
// appends its body bytes.
func (e *nvtxRow) int(b []byte, at int, v int64) []byte {
	var typ byte
	var n int
	switch {
	case e.intSmall && (v == 0 || v == 1):
		typ = byte(8 + v)
	case v >= math.MinInt8 && v <= math.MaxInt8:
		typ, n = 1, 1
	case v >= math.MinInt16 && v <= math.MaxInt16:
		typ, n = 2, 2
	case v >= -1<<23 && v < 1<<23:
		typ, n = 3, 3
	case v >= math.MinInt32 && v <= math.MaxInt32:
		typ, n = 4, 4
	case v >= -1<<47 && v < 1<<47:
		typ, n = 5, 6
	default:
		typ, n = 6, 8
	}
	b[at] = typ
	var be [8]byte
	binary.BigEndian.PutUint64(be[:], uint64(v))
	return append(b, be[8-n:]...)
}

func real64(b []byte, at int, v float64) []byte {
	b[at] = 7
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
