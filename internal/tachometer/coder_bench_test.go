package tachometer

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
)

// BenchmarkTextValues codes batches of a dictionary-encoded text column the
// way a capture stores its identity columns: runs of one value (a series'
// rows together), an optional column, a few nulls.
func BenchmarkTextValues(b *testing.B) {
	dict := make([][]byte, 64)
	for i := range dict {
		dict[i] = []byte(fmt.Sprintf("decode_node_%d", i))
	}
	const n = batchRows
	for _, run := range []int{1, 8, 512} {
		for _, optional := range []bool{false, true} {
			values := make([]parquet.ByteArray, 0, n)
			var defs []int16
			if optional {
				defs = make([]int16, n)
			}
			for i := range n {
				if optional && i%97 == 5 {
					continue
				}
				if optional {
					defs[i] = 1
				}
				values = append(values, dict[(i/run)%len(dict)])
			}
			valid := validity{n: n, defs: defs}
			b.Run(fmt.Sprintf("run=%d/optional=%v", run, optional), func(b *testing.B) {
				c := newColumnCoder(false)
				c.rows = make([]int32, n)
				cpu0 := cpuNS()
				for range b.N {
					c.textValues(0, values, valid, true)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/value")
				b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N*n), "cpu-ns/value")
			})
		}
	}
}

// Dictionary values coded by address give the codes coding each value by
// its text gives: runs, changes, nulls, and empty values (nil or not) first.
func TestTextValuesByAddress(t *testing.T) {
	dict := [][]byte{nil, []byte("a"), []byte("bb"), {}, []byte("a")[:0]}
	for _, optional := range []bool{false, true} {
		var values []parquet.ByteArray
		var defs []int16
		const n = 300
		for i := range n {
			if optional && i%7 == 3 {
				defs = append(defs, 0)
				continue
			}
			if optional {
				defs = append(defs, 1)
			}
			values = append(values, dict[(i/5+i/3)%len(dict)])
		}
		c := newColumnCoder(false)
		c.rows = make([]int32, n)
		c.textValues(0, values, validity{n: n, defs: defs}, true)
		ref := newColumnCoder(false)
		want := make([]int32, n)
		k := 0
		for i := range n {
			if optional && defs[i] == 0 {
				continue
			}
			want[i] = ref.text(values[k])
			k++
		}
		if !slices.Equal(c.rows, want) || !slices.Equal(c.texts, ref.texts) {
			t.Errorf("optional %v: codes %v texts %q, want %v %q", optional, c.rows[:20], c.texts, want[:20], ref.texts)
		}
	}
}

// BenchmarkIdentify finds the identities of batches of nine coded columns
// whose series run over 64 rows or over the whole batch.
func BenchmarkIdentify(b *testing.B) {
	for _, run := range []int{64, batchRows} {
		b.Run(fmt.Sprintf("run=%d", run), func(b *testing.B) {
			c := newIdentityCoder(layout{identity: make([]string, 8)}, false)
			c.reserve(batchRows)
			for k, col := range c.cols {
				for i := range batchRows {
					col.rows[i] = int32(1 + (i/run+k)%50)
				}
				col.texts = make([]string, 50)
			}
			ids := make([]int32, batchRows)
			cpu0 := cpuNS()
			for range b.N {
				c.identify(batchRows, ids)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchRows), "ns/row")
			b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N*batchRows), "cpu-ns/row")
		})
	}
}
