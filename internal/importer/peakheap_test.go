package importer

import (
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/dsight/dsight/tools/gen/synth"
)

// peakHeap runs f while sampling the heap's object bytes every
// millisecond, and returns the highest sample above the heap it started
// from: the working set f needed, garbage not yet collected included.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	peak = max(peak, read())
	if peak < base {
		return 0
	}
	return peak - base
}

// BenchmarkTracedImportPeakHeap reports the heap a traced import needs per
// span it reads: today every decoded span is held until the join, so this
// grows with the run; a streaming import keeps it to its working set.
// go test -run X -bench TracedImportPeakHeap ./internal/importer
func BenchmarkTracedImportPeakHeap(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "run")
	sum, err := synth.WriteRun(dir, synth.Config{
		Seed: 1, Requests: 3000, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
	})
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	b.ResetTimer()
	for range b.N {
		peak = max(peak, peakHeap(func() {
			res, err := Import(Options{Run: dir})
			if err != nil {
				b.Fatal(err)
			}
			runtime.KeepAlive(res)
		}))
	}
	b.ReportMetric(float64(peak)/float64(sum.Spans), "peak-heap-B/span")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(sum.Spans), "spans")
}
