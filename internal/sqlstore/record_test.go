package sqlstore

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// spanLikeRow is a server_spans row's values: texts, NULLs, reals and
// integers of every width.
func spanLikeRow(rng *rand.Rand) []any {
	row := make([]any, 22)
	for i := range row {
		switch rng.IntN(5) {
		case 0:
			row[i] = nil
		case 1:
			row[i] = strings.Repeat("a", rng.IntN(40))
		case 2:
			row[i] = rng.NormFloat64() * 1e3
		case 3:
			row[i] = int64(rng.Uint64() >> rng.IntN(64))
		default:
			row[i] = rng.IntN(2)
		}
	}
	return row
}

// A record that keeps no key gives the same bytes as one that does.
func TestValuesOnlyRecordBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, small := range []bool{false, true} {
		keyed, plain := &record{intSmall: small}, &record{intSmall: small, valuesOnly: true}
		for range 2000 {
			row := spanLikeRow(rng)
			keyed.reset()
			plain.reset()
			for _, v := range row {
				if err := keyed.value(v); err != nil {
					t.Fatal(err)
				}
				if err := plain.value(v); err != nil {
					t.Fatal(err)
				}
			}
			if a, b := keyed.bytes(), plain.bytes(); !bytes.Equal(a, b) {
				t.Fatalf("%v: % x, keyed % x", row, b, a)
			}
		}
	}
	// A tree refuses a record with no key to check.
	tree := &bulkTree{order: keyOrder{keyCols: 1}, maxLocal: math.MaxInt}
	plain := &record{valuesOnly: true}
	plain.int(1)
	if err := tree.add(plain); err == nil {
		t.Error("a bulk tree took a record that kept no key")
	}
}

// BenchmarkRecordRow encodes a span-like row of 22 values, keeping its
// key as an index row must and not keeping it as a rowid table's row may.
//
//	go test -run '^$' -bench RecordRow -count 5 ./internal/sqlstore
func BenchmarkRecordRow(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	rows := make([][]any, 256)
	for i := range rows {
		rows[i] = spanLikeRow(rng)
	}
	for _, c := range []struct {
		name string
		r    *record
	}{{"keyed", &record{}}, {"valuesOnly", &record{valuesOnly: true}}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				c.r.reset()
				for _, v := range rows[i%len(rows)] {
					_ = c.r.value(v)
				}
				_ = c.r.bytes()
			}
		})
	}
}
