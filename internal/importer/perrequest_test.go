package importer

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/heappeak"
	"github.com/dsight/dsight/internal/shard"
	"github.com/dsight/dsight/tools/gen/synth"
)

// perRequestHeapBound is the most live heap a traced build may add per
// client request, between two generated scales of the same shape (about
// 20 spans, two frontend bridges and two worker-log bindings a request):
// the slope that sets a 1M-request build's peak. What the import held per
// request before the bridges, the worker-log records and the client
// index were let go at the join, and before the values worker logs and
// client rows repeat were kept once, was 3.5-5.1 KB (measured with this
// test; 2.4-2.7 KB after).
const perRequestHeapBound = 3000

// tracedPeak imports a generated traced run of n requests and encodes its
// core, with the collector running at nearly every allocation (GOGC=5),
// so the heap's highest object bytes are close to its highest live heap.
func tracedPeak(t *testing.T, n int) uint64 {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{
		Seed: 3, Requests: n, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
	}); err != nil {
		t.Fatal(err)
	}
	old := debug.SetGCPercent(5)
	defer debug.SetGCPercent(old)
	return heappeak.During(func() {
		res, err := Import(Options{Run: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := shard.Encode(catalog.Encode(res.Dataset)); err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(res)
	})
}

// A traced build's live heap grows by at most perRequestHeapBound bytes a
// request: what the import holds until the report is written is per
// request, and this bounds how much.
func TestTracedHeapPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("imports two generated traced runs")
	}
	const small, large = 1000, 5000
	// The least of two imports at each scale: garbage the collector has
	// not reached yet only ever adds to a sample.
	lo, hi := min(tracedPeak(t, small), tracedPeak(t, small)), min(tracedPeak(t, large), tracedPeak(t, large))
	slope := (float64(hi) - float64(lo)) / (large - small)
	t.Logf("peak heap %.1f MB at %d requests, %.1f MB at %d: %.0f B a request (bound %d)",
		float64(lo)/(1<<20), small, float64(hi)/(1<<20), large, slope, perRequestHeapBound)
	if slope > perRequestHeapBound {
		t.Fatalf("the traced build's peak heap grows by %.0f B a request, over the bound of %d", slope, perRequestHeapBound)
	}
}
