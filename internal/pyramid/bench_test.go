package pyramid

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/shard"
)

const benchPoints = 10_000_000

// benchSeries is a scraped gauge: ~1 ms apart with jitter, idle stretches,
// a random walk of small integers (active requests) and a few nulls.
func benchSeries(n int) []input {
	rng := rand.New(rand.NewPCG(42, 43))
	out := make([]input, n)
	t := int64(1_700_000_000) * 1e9
	v := 64.0
	for i := range out {
		t += 900_000 + rng.Int64N(200_000)
		if rng.IntN(100_000) == 0 {
			t += 30e9
		}
		v = max(0, v+float64(rng.IntN(5)-2))
		out[i] = input{t: t, v: v, null: rng.IntN(50_000) == 0}
	}
	return out
}

var benchInput = sync.OnceValue(func() []input { return benchSeries(benchPoints) })

var benchPyramids = map[int]*Pyramid{}

// benchData is the benchmark series and its pyramid with MinBucketRows r.
func benchData(r int) ([]input, *Pyramid) {
	in := benchInput()
	if p := benchPyramids[r]; p != nil {
		return in, p
	}
	b, _ := NewBuilder(Options{MinBucketRows: r})
	for _, q := range in {
		b.Add(q.t, q.v, q.null)
	}
	p := b.Finish()
	benchPyramids[r] = p
	return in, p
}

// benchRows are the MinBucketRows settings compared.
var benchRows = []int{16, 32}

func BenchmarkBuild(b *testing.B) {
	for _, r := range benchRows {
		b.Run(fmt.Sprintf("R=%d", r), func(b *testing.B) { benchBuild(b, r) })
	}
}

func benchBuild(b *testing.B, r int) {
	in := benchInput()
	b.ResetTimer()
	var p *Pyramid
	for i := 0; i < b.N; i++ {
		bl, _ := NewBuilder(Options{MinBucketRows: r})
		for _, q := range in {
			bl.Add(q.t, q.v, q.null)
		}
		p = bl.Finish()
	}
	b.StopTimer()
	b.ReportMetric(float64(len(in))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpoints/s")
	b.ReportMetric(0, "ns/op")
	summaryBytes, exactBytes := layoutBytes(b, p)
	perM := 1e6 / float64(len(in))
	b.ReportMetric(float64(p.Buckets())*perM, "buckets/Msample")
	b.ReportMetric(float64(summaryBytes)*perM, "summaryB/Msample")
	b.ReportMetric(float64(exactBytes)*perM, "exactB/Msample")
}

// layoutBytes is the gzip size of the level chunks and of the exact chunks.
func layoutBytes(b *testing.B, p *Pyramid) (summary, exact int64) {
	lay, err := p.Tables()
	if err != nil {
		b.Fatal(err)
	}
	for i, t := range lay.Chunks {
		raw, err := shard.Encode(&shard.Shard{Kind: "metrics", Tables: []shard.Table{t}})
		if err != nil {
			b.Fatal(err)
		}
		gz, err := shard.Compress(raw)
		if err != nil {
			b.Fatal(err)
		}
		if i < len(p.exact) {
			exact += int64(len(gz))
		} else {
			summary += int64(len(gz))
		}
	}
	return summary, exact
}

// benchRanges are 50 views of widths from 1 ms to the whole series.
func benchRanges(in []input) [][2]int64 {
	rng := rand.New(rand.NewPCG(7, 7))
	first, last := in[0].t, in[len(in)-1].t
	out := [][2]int64{{first, last}}
	for len(out) < 50 {
		width := int64(1e6) << rng.IntN(24) // 1 ms .. ~2.3 h
		if width > last-first {
			continue
		}
		from := first + rng.Int64N(last-first-width)
		out = append(out, [2]int64{from, from + width})
	}
	return out
}

func BenchmarkQuery(b *testing.B) {
	for _, r := range benchRows {
		b.Run(fmt.Sprintf("R=%d", r), func(b *testing.B) { benchQuery(b, r) })
	}
}

func benchQuery(b *testing.B, r int) {
	in, p := benchData(r)
	ranges := benchRanges(in)
	const pixels = 2000
	var durs []time.Duration
	var buckets, rows, maxRows, exact int64
	v := &View{} // one chart's view, reused as the page would
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range ranges {
			start := time.Now()
			err := p.QueryInto(v, r[0], r[1], pixels)
			durs = append(durs, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			buckets += v.Read.Buckets
			rows += v.Read.Rows
			maxRows = max(maxRows, v.Read.Rows)
			if v.Exact {
				exact++
			}
		}
	}
	b.StopTimer()
	reportLatency(b, durs)
	n := float64(len(durs))
	b.ReportMetric(float64(buckets)/n, "buckets/query")
	b.ReportMetric(float64(rows)/n, "rows/query")
	b.ReportMetric(float64(maxRows), "max-rows")
	b.ReportMetric(float64(exact)/n, "exact-fraction")
}

func BenchmarkStats(b *testing.B) {
	in, p := benchData(DefaultMinBucketRows)
	ranges := benchRanges(in)
	var durs []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range ranges {
			start := time.Now()
			if _, _, err := p.Stats(r[0], r[1]); err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(start))
		}
	}
	b.StopTimer()
	reportLatency(b, durs)
}

func reportLatency(b *testing.B, durs []time.Duration) {
	slices.Sort(durs)
	at := func(q float64) float64 { return float64(durs[int(q*float64(len(durs)-1))].Microseconds()) }
	b.ReportMetric(at(0.5), "p50-µs")
	b.ReportMetric(at(0.95), "p95-µs")
	b.ReportMetric(at(1), "max-µs")
	b.ReportMetric(0, "ns/op")
}
