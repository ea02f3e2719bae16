package metrics

import (
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/dsight/dsight/internal/tachometer"
)

// spillBenchPoints is a capture laid out as final.parquet is: series after
// series, each at a steady scrape interval with an occasional late scrape,
// its rows interleaved with 8 others of its name, its value changing every
// few scrapes (about the 2 bytes a pair of the generated captures).
func spillBenchPoints(series, perSeries int) []tachometer.Point {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := make([]tachometer.Point, 0, series*perSeries)
	for s := range series {
		t, v := int64(1_700_000_000_000_000_000), 100.0
		for i := range perSeries {
			t += 1_000_000_000
			if rng.IntN(50) == 0 {
				t += int64(rng.IntN(1_000_000))
			}
			if rng.IntN(8) == 0 {
				v += float64(rng.IntN(7) - 3)
			}
			ps = append(ps, tachometer.Point{Series: int32(s), Source: 0, Row: int64(s/8*8*perSeries + i*8 + s%8), TimeNS: t, Value: v})
		}
	}
	return ps
}

// BenchmarkSpill times the spill's two halves per point: appending pairs
// as the read delivers them (in batches of 4,096), and loading each series
// back.
func BenchmarkSpill(b *testing.B) {
	const series, perSeries = 64, 50_000
	ps := spillBenchPoints(series, perSeries)
	newStore := func(b *testing.B) *spillStore {
		s, err := newSpillStore(0)
		if err != nil {
			b.Fatal(err)
		}
		for i := range series {
			if err := s.Series(&tachometer.SeriesInfo{ID: i}); err != nil {
				b.Fatal(err)
			}
		}
		return s
	}
	fill := func(b *testing.B, s *spillStore) {
		for at := 0; at < len(ps); at += 4096 {
			if err := s.Points(ps[at:min(at+4096, len(ps))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.endRead(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("points", func(b *testing.B) {
		cpu0 := processCPUNS()
		for b.Loop() {
			s := newStore(b)
			fill(b, s)
			s.close()
		}
		b.ReportMetric(float64(processCPUNS()-cpu0)/float64(b.N*len(ps)), "cpu-ns/point")
	})
	// The pair encoding alone, as Points applies it, into one reused block.
	b.Run("encode", func(b *testing.B) {
		block := make([]byte, 0, defaultSpillBlock)
		cpu0 := processCPUNS()
		for b.Loop() {
			codecs := make([]pairCodec, series)
			evs := make([]evidenceCodec, series)
			for i := range ps {
				p := &ps[i]
				if len(block)+maxSpillPair > defaultSpillBlock {
					block = block[:0]
				}
				if evs[p.Series].sameStride(p.Source, p.Row) {
					block = codecs[p.Series].appendMarked(block, p.TimeNS, p.Value, spillSameStride)
				} else {
					block = codecs[p.Series].append(block, p.TimeNS, p.Value)
					block = evs[p.Series].append(block, p.Source, p.Row)
				}
			}
		}
		b.ReportMetric(float64(processCPUNS()-cpu0)/float64(b.N*len(ps)), "cpu-ns/point")
	})
	b.Run("load", func(b *testing.B) {
		s := newStore(b)
		defer s.close()
		fill(b, s)
		var sc loadScratch
		b.ResetTimer()
		cpu0 := processCPUNS()
		for b.Loop() {
			for i := range series {
				if _, _, err := s.load(i, &sc); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(processCPUNS()-cpu0)/float64(b.N*len(ps)), "cpu-ns/point")
	})
}

// processCPUNS is the user and system CPU time of the process so far: at a
// high load average it varies less than wall time.
func processCPUNS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
