package importer

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dsight/dsight/internal/heappeak"
	"github.com/dsight/dsight/tools/gen/synth"
)

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
		peak = max(peak, heappeak.During(func() {
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
