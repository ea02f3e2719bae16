package catalog

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// layoutProfile is a profile of n ranges with irregular times, names and
// threads, so its chunks differ in size and compression.
func layoutProfile(n int) *model.Profile {
	rng := rand.New(rand.NewPCG(7, 11))
	p := &model.Profile{ID: 3, EpochNS: 1_700_000_000_000_000_000, Ranges: make([]model.NVTXRange, n)}
	t := int64(2_000_000_000)
	for k := range p.Ranges {
		t += rng.Int64N(50_000)
		p.Ranges[k] = model.NVTXRange{StartNS: t, EndNS: t + rng.Int64N(2_000_000), GlobalTID: int64(1)<<56 | int64(rng.IntN(12)), RowID: int64(k) + 1, Name: int32(rng.IntN(300))}
	}
	return p
}

// TestCompressProfileChunksMatchesProfileChunks checks the parallel layout
// gives, for any worker count, the same shards in the same order as
// compressing ProfileChunks' payloads one by one: a report's bytes do not
// depend on the cores.
func TestCompressProfileChunksMatchesProfileChunks(t *testing.T) {
	origin := int64(1_700_000_000_500_000_000)
	for _, n := range []int{0, 1, ProfileChunkRows, 5*ProfileChunkRows + 77} {
		p := layoutProfile(n)
		want, err := ProfileChunks(p, origin)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 3, 16} {
			var got []CompressedChunk
			err := CompressProfileChunks(p, origin, workers, func(k int, c CompressedChunk) error {
				if k != len(got) {
					t.Fatalf("%d ranges, %d workers: chunk %d emitted after %d", n, workers, k, len(got))
				}
				got = append(got, c)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d ranges, %d workers: %d chunks, want %d", n, workers, len(got), len(want))
			}
			for k, w := range want {
				gz, err := shard.Compress(w.Raw)
				if err != nil {
					t.Fatal(err)
				}
				g := got[k]
				if !bytes.Equal(g.Gz, gz) || g.RawBytes != len(w.Raw) || g.Rows != w.Rows || g.MinStartNS != w.MinStartNS || g.MaxStartNS != w.MaxStartNS || g.MaxEnd != w.MaxEnd {
					t.Fatalf("%d ranges, %d workers: chunk %d differs from ProfileChunks'", n, workers, k)
				}
			}
		}
	}
}

// TestCompressProfileChunksStopsAtEmitsError checks an emit error ends the
// layout (no further chunk is emitted) and is returned, without leaving
// the workers blocked.
func TestCompressProfileChunksStopsAtEmitsError(t *testing.T) {
	p := layoutProfile(40 * ProfileChunkRows)
	stop := errors.New("disk full")
	for _, workers := range []int{1, 2, 4} {
		emitted := 0
		err := CompressProfileChunks(p, 0, workers, func(k int, c CompressedChunk) error {
			emitted++
			if k == 3 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || emitted != 4 {
			t.Fatalf("%d workers: error %v after %d chunks, want %v after 4", workers, err, emitted, stop)
		}
	}
}

// BenchmarkProfileLayout lays out and compresses the chunks of a profile
// of DSIGHT_LAYOUT_BENCH_RANGES irregular ranges (default 1,000,000), as a
// build does, with one worker and with every core; ns/range is wall time.
func BenchmarkProfileLayout(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("DSIGHT_LAYOUT_BENCH_RANGES")); err == nil && v > 0 {
		n = v
	}
	p := layoutProfile(n)
	for _, bc := range []struct {
		name    string
		workers int
	}{{"workers=1", 1}, {"workers=GOMAXPROCS", runtime.GOMAXPROCS(0)}} {
		b.Run(bc.name, func(b *testing.B) {
			workers := bc.workers
			b.ReportAllocs()
			var gz int
			cpu0 := cpuNS()
			for range b.N {
				gz = 0
				err := CompressProfileChunks(p, 0, workers, func(_ int, c CompressedChunk) error {
					gz += len(c.Gz)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/range")
			b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N)/float64(n), "cpu-ns/range")
			b.ReportMetric(float64(gz)/float64(n), "gz-B/range")
		})
	}
	b.Run("ProfileChunks", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuNS()
		for range b.N {
			cs, err := ProfileChunks(p, 0)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range cs {
				if _, err := shard.Compress(c.Raw); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/range")
		b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N)/float64(n), "cpu-ns/range")
	})
}

// cpuNS is the user and system CPU time of the process so far: on a shared
// machine wall time is mostly waiting.
func cpuNS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
