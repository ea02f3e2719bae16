package tachometer

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// Column names of the Tachometer capture schema.
const (
	colTimestamp   = "timestamp_ns"
	colName        = "metric_name"
	colValue       = "metric_value"
	colEndpoint    = "scraper_endpoint"
	colSinceStart  = "time_since_start"
	colBucketUpper = "histogram_bucket_upper"
	colHostname    = "hostname"
	colGPU         = "gpu"
	colWorkerRole  = "worker_role"
	colWorkerIndex = "worker_index"
	colProcess     = "worker_process"
	colGlobalRank  = "global_rank"
	colRank        = "rank"
)

// requiredColumns are the columns without which rows cannot be aligned or
// identified.
var requiredColumns = []string{colTimestamp, colName, colValue, colEndpoint}

// valueColumns carry measurements or derived names; every other column is
// part of a series identity.
var valueColumns = set(
	"_row", colTimestamp, colSinceStart, colValue, colName, "metric_name_clean",
	"histogram_sum", "histogram_count", "histogram_bucket_lower", colBucketUpper,
)

// layout is where the columns a reader needs sit in one file's schema.
type layout struct {
	identity  []string // identity column names, in schema order
	upper     bool     // histogram_bucket_upper present
	timesOnly bool     // decode timestamp_ns alone (Inspect)
}

// errUnaligned is the schema of older capture writers: their samples cannot
// be placed on the run's clock, so such a file is left unread with this
// reason rather than failing the whole capture.
var errUnaligned = fmt.Errorf("no %s column: rows carry only %s (seconds since the capture writer started) "+
	"and the file records no absolute start time, so its samples cannot be aligned to UTC; "+
	"a capture written with %s can be", colTimestamp, colSinceStart, colTimestamp)

// checkSchema validates the columns of one capture file and returns the
// columns to decode.
func checkSchema(s *arrow.Schema) (layout, error) {
	var l layout
	if !s.HasField(colTimestamp) && s.HasField(colSinceStart) {
		return l, errUnaligned
	}
	for _, name := range requiredColumns {
		if !s.HasField(name) {
			return l, fmt.Errorf("missing required column %q (raw metrics require %s, %s, %s and %s)",
				name, colTimestamp, colName, colValue, colEndpoint)
		}
	}
	for _, f := range s.Fields() {
		if len(s.FieldIndices(f.Name)) > 1 {
			return l, fmt.Errorf("column %q appears more than once", f.Name)
		}
		var ok bool
		switch f.Name {
		case colTimestamp:
			ok = isTimestampType(f.Type)
		case colValue, colBucketUpper:
			ok = isFloatType(f.Type)
		case colName:
			ok = isStringType(f.Type)
		case colEndpoint:
			ok = isStringType(f.Type)
			l.identity = append(l.identity, f.Name)
		default:
			if valueColumns[f.Name] {
				continue
			}
			ok = isIdentityType(f.Type)
			l.identity = append(l.identity, f.Name)
		}
		if !ok {
			return l, fmt.Errorf("column %q has unsupported type %s", f.Name, f.Type)
		}
	}
	l.upper = s.HasField(colBucketUpper)
	return l, nil
}

func isTimestampType(t arrow.DataType) bool {
	if t.ID() == arrow.INT64 {
		return true
	}
	ts, ok := t.(*arrow.TimestampType)
	return ok && ts.Unit == arrow.Nanosecond
}

func isFloatType(t arrow.DataType) bool {
	return t.ID() == arrow.FLOAT64 || t.ID() == arrow.FLOAT32
}

func isStringType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return true
	case arrow.DICTIONARY:
		return isStringType(t.(*arrow.DictionaryType).ValueType)
	}
	return false
}

func isIdentityType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return isStringType(t)
}

// textColumn reads one identity or name column as text; ok is false for
// nulls. Returned strings alias the record's buffers: clone before keeping.
type textColumn func(i int) (s string, ok bool)

func newTextColumn(a arrow.Array) textColumn {
	switch a := a.(type) {
	case *array.String:
		return func(i int) (string, bool) { return a.Value(i), a.IsValid(i) }
	case *array.LargeString:
		return func(i int) (string, bool) { return a.Value(i), a.IsValid(i) }
	case *array.Dictionary:
		dict := newTextColumn(a.Dictionary())
		return func(i int) (string, bool) {
			if a.IsNull(i) {
				return "", false
			}
			return dict(a.GetValueIndex(i))
		}
	case *array.Boolean:
		// The reference implementation stringifies with Python's str().
		return func(i int) (string, bool) {
			if a.Value(i) {
				return "True", a.IsValid(i)
			}
			return "False", a.IsValid(i)
		}
	case *array.Float64:
		return func(i int) (string, bool) { return pyFloatText(a.Value(i)), a.IsValid(i) }
	case *array.Float32:
		return func(i int) (string, bool) { return pyFloatText(float64(a.Value(i))), a.IsValid(i) }
	}
	return intText(a)
}

func intText(a arrow.Array) textColumn {
	var signed func(int) int64
	var unsigned func(int) uint64
	switch a := a.(type) {
	case *array.Int8:
		signed = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int16:
		signed = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int32:
		signed = func(i int) int64 { return int64(a.Value(i)) }
	case *array.Int64:
		signed = func(i int) int64 { return a.Value(i) }
	case *array.Uint8:
		unsigned = func(i int) uint64 { return uint64(a.Value(i)) }
	case *array.Uint16:
		unsigned = func(i int) uint64 { return uint64(a.Value(i)) }
	case *array.Uint32:
		unsigned = func(i int) uint64 { return uint64(a.Value(i)) }
	case *array.Uint64:
		unsigned = func(i int) uint64 { return a.Value(i) }
	default:
		panic(fmt.Sprintf("invariant violation: identity column of type %s passed checkSchema", a.DataType()))
	}
	if signed != nil {
		return func(i int) (string, bool) { return strconv.FormatInt(signed(i), 10), a.IsValid(i) }
	}
	return func(i int) (string, bool) { return strconv.FormatUint(unsigned(i), 10), a.IsValid(i) }
}

func pyFloatText(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return pyFloatRepr(v)
}

// copyTimes copies a batch's timestamps into dst and returns the first
// null row, or -1.
func copyTimes(dst []int64, a arrow.Array) int {
	switch a := a.(type) {
	case *array.Int64:
		copy(dst, a.Int64Values())
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			dst[i] = int64(v)
		}
	default:
		panic(fmt.Sprintf("invariant violation: timestamp column of type %s passed checkSchema", a.DataType()))
	}
	for i := 0; i < a.Len() && a.NullN() > 0; i++ {
		if a.IsNull(i) {
			return i
		}
	}
	return -1
}

// copyFloats copies a float column into dst, widening float32 (older
// captures; widening is exact) and writing NaN for null.
func copyFloats(dst []float64, a arrow.Array) {
	switch a := a.(type) {
	case *array.Float64:
		copy(dst, a.Float64Values())
	case *array.Float32:
		for i, v := range a.Float32Values() {
			dst[i] = float64(v)
		}
	default:
		panic(fmt.Sprintf("invariant violation: float column of type %s passed checkSchema", a.DataType()))
	}
	for i := 0; i < a.Len() && a.NullN() > 0; i++ {
		if a.IsNull(i) {
			dst[i] = math.NaN()
		}
	}
}
