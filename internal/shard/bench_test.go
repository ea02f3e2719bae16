package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchShard builds a deterministic table shaped like a request trace: a
// sorted, jittered nanosecond timestamp, a float64 measurement (full
// precision, the worst case for gzip), a string with 100 distinct values and
// a nullable int (about one row in five null).
func benchShard(rows int) *Shard {
	rng := rand.New(rand.NewPCG(1, 2))
	ts := make([]int64, rows)
	vals := make([]float64, rows)
	names := make([]string, rows)
	tokens := make([]int64, rows)
	valid := make([]bool, rows)
	distinct := make([]string, 100)
	for i := range distinct {
		distinct[i] = fmt.Sprintf("worker-%02d/model-%d", i, i%7)
	}
	t := int64(1_700_000_000_000_000_000)
	for i := 0; i < rows; i++ {
		t += 1_000_000 + rng.Int64N(400_000) - 200_000 // ~1 ms apart, ±0.2 ms
		ts[i] = t
		vals[i] = 0.05 + rng.ExpFloat64()*0.2
		names[i] = distinct[rng.IntN(len(distinct))]
		if rng.IntN(5) != 0 {
			valid[i] = true
			tokens[i] = 1 + rng.Int64N(4096)
		}
	}
	return &Shard{Kind: "bench", Tables: []Table{{Name: "requests", Rows: rows, Columns: []Column{
		{Name: "start_ns", Type: Int64, Ints: ts},
		{Name: "latency_s", Type: Float64, Floats: vals},
		{Name: "worker", Type: String, Strings: names},
		{Name: "output_tokens", Type: Int64, Ints: tokens, Valid: valid},
	}}}}
}

const benchRows = 1_000_000

func BenchmarkEncode(b *testing.B) {
	s := benchShard(benchRows)
	raw, err := Encode(s)
	if err != nil {
		b.Fatal(err)
	}
	gz, err := Compress(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Encode(s); err != nil {
			b.Fatal(err)
		}
	}
	reportSizes(b, raw, gz)
}

func BenchmarkDecode(b *testing.B) {
	raw, err := Encode(benchShard(benchRows))
	if err != nil {
		b.Fatal(err)
	}
	gz, err := Compress(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
	reportSizes(b, raw, gz)
}

// BenchmarkCompress and BenchmarkDecompress measure the gzip step the
// report writer and native readers add on top of Encode and Decode. Floats
// rounded to 3 decimals (as many metrics are) show what gzip gains when the
// values repeat.
func BenchmarkCompress(b *testing.B) {
	for _, floats := range []string{"full", "3dp"} {
		b.Run("floats="+floats, func(b *testing.B) {
			s := benchShard(benchRows)
			if floats == "3dp" {
				for i, f := range s.Tables[0].Columns[1].Floats {
					s.Tables[0].Columns[1].Floats[i] = math.Round(f*1000) / 1000
				}
			}
			raw, err := Encode(s)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(raw)))
			b.ResetTimer()
			var gz []byte
			for b.Loop() {
				if gz, err = Compress(raw); err != nil {
					b.Fatal(err)
				}
			}
			reportSizes(b, raw, gz)
		})
	}
}

func BenchmarkDecompress(b *testing.B) {
	raw, err := Encode(benchShard(benchRows))
	if err != nil {
		b.Fatal(err)
	}
	gz, err := Compress(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decompress(gz); err != nil {
			b.Fatal(err)
		}
	}
}

func reportSizes(b *testing.B, raw, gz []byte) {
	b.ReportMetric(float64(len(raw))/benchRows, "raw-B/row")
	b.ReportMetric(float64(len(gz))/benchRows, "gzip-B/row")
	b.ReportMetric(float64(b.N)*benchRows/b.Elapsed().Seconds(), "rows/s")
}
