package pyramid

import (
	"syscall"
	"testing"

	"github.com/dsight/dsight/internal/shard"
)

// captureSeriesPoints is one scraped series of a large capture with its
// evidence: one source file, rows 12 apart (a series of a sorted capture).
func captureSeriesPoints(n int) Points {
	in := benchSeries(n)
	p := Points{T: make([]int64, n), V: make([]float64, n), Source: make([]int64, n), Row: make([]int64, n)}
	for i, q := range in {
		p.T[i], p.V[i], p.Source[i], p.Row[i] = q.t, q.v, 3, int64(i)*12+5
	}
	return p
}

// BenchmarkSummarize is the per-series work of a capture's summary, in CPU
// time per point (wall time on a loaded machine says little): adding the
// points (one call each or in runs of 4,096), Finish, EncodeShard,
// shard.Compress, and all of them with Recycle.
func BenchmarkSummarize(b *testing.B) {
	const n = 1_000_000
	pts := captureSeriesPoints(n)
	opts := Options{Temporal: Sample, Points: n, Evidence: true}
	build := func(bulk bool) *Builder {
		bl, _ := NewBuilder(opts)
		if bulk {
			for lo := 0; lo < n; lo += 4096 {
				hi := min(n, lo+4096)
				if err := bl.AddPoints(Points{T: pts.T[lo:hi], V: pts.V[lo:hi], Source: pts.Source[lo:hi], Row: pts.Row[lo:hi]}); err != nil {
					b.Fatal(err)
				}
			}
			return bl
		}
		for i := range n {
			if err := bl.AddFrom(pts.T[i], pts.V[i], false, pts.Source[i], pts.Row[i]); err != nil {
				b.Fatal(err)
			}
		}
		return bl
	}
	// measure runs step b.N times, counting the CPU time of step's work
	// alone; prepare runs before each step, outside the count.
	measure := func(b *testing.B, prepare func(), step func()) {
		b.ReportAllocs()
		var cpu int64
		for range b.N {
			b.StopTimer()
			prepare()
			b.StartTimer()
			c0 := cpuNS()
			step()
			cpu += cpuNS() - c0
		}
		b.ReportMetric(float64(cpu)/float64(int64(b.N)*n), "cpu-ns/point")
	}
	b.Run("add=point", func(b *testing.B) { measure(b, func() {}, func() { build(false) }) })
	b.Run("add=run", func(b *testing.B) { measure(b, func() {}, func() { build(true) }) })
	var bl *Builder
	b.Run("finish", func(b *testing.B) { measure(b, func() { bl = build(true) }, func() { bl.Finish() }) })
	p := build(true).Finish()
	raw, err := p.EncodeShard()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode", func(b *testing.B) { measure(b, func() {}, func() { p.EncodeShard() }) })
	b.Run("compress", func(b *testing.B) { measure(b, func() {}, func() { shard.Compress(raw) }) })
	// The whole of it as the capture does it, recycling each summary's
	// chunks once it is encoded and encoding into one reused buffer.
	var buf []byte
	b.Run("series", func(b *testing.B) {
		measure(b, func() {}, func() {
			p := build(true).Finish()
			buf, _ = p.AppendShard(buf[:0])
			shard.Compress(buf)
			p.Recycle()
		})
	})
}

// cpuNS is the process's user and system CPU time.
func cpuNS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
