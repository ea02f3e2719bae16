package importer

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/shard"
	"github.com/dsight/dsight/tools/gen/synth"
)

// streamHeapLimit is the memory limit the streamed import of
// streamHeapRun runs under, and the bound of its peak heap: the held
// import of the same run needs more than twice as much (every decoded span
// lives until the join), the streamed one its working set.
const streamHeapLimit = 64 << 20

func streamHeapRun(t *testing.T) (string, synth.Summary) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	sum, err := synth.WriteRun(dir, synth.Config{
		Seed: 1, Requests: 3000, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
		OTelUntraced: 0.05, OTelDuplicate: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, sum
}

// A traced run imported under a memory limit the in-memory import
// exceeds gives the shards the in-memory import gives.
func TestStreamedImportUnderMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 3,000-request traced run twice")
	}
	run, sum := streamHeapRun(t)
	shards := func(res *Result) (core, evidence []byte) {
		d := res.Dataset
		var ev *shard.Shard
		if d.StreamedEvidence != nil {
			ev = d.StreamedEvidence.(*catalog.StreamedEvidence).Shard()
		} else {
			ev = catalog.EncodeEvidence(d)
		}
		c, err := shard.Encode(catalog.Encode(d))
		if err != nil {
			t.Fatal(err)
		}
		e, err := shard.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		return c, e
	}
	var held, streamed *Result
	var err error
	heldPeak := peakHeap(func() { held, err = Import(Options{Run: run}) })
	if err != nil {
		t.Fatal(err)
	}
	heldCore, heldEvidence := shards(held)
	held = nil
	runtime.GC()

	old := debug.SetMemoryLimit(streamHeapLimit)
	defer debug.SetMemoryLimit(old)
	streamedPeak := peakHeap(func() { streamed, err = Import(Options{Run: run, Stream: true}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d spans: peak heap held %.1f MB, streamed %.1f MB (limit %d MB)", sum.Spans, float64(heldPeak)/(1<<20), float64(streamedPeak)/(1<<20), streamHeapLimit>>20)
	if heldPeak <= 2*streamHeapLimit {
		t.Fatalf("the held import peaked at %d bytes, within twice the limit: the run no longer shows the bound", heldPeak)
	}
	if streamedPeak > streamHeapLimit {
		t.Fatalf("the streamed import peaked at %d bytes of heap, over its %d limit", streamedPeak, streamHeapLimit)
	}
	core, evidence := shards(streamed)
	if string(core) != string(heldCore) || string(evidence) != string(heldEvidence) {
		t.Fatal("the streamed import's shards differ from the held import's")
	}
}
