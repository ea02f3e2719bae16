package importer

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dsight/dsight/internal/spanspill"
	"github.com/dsight/dsight/tools/gen/synth"
)

func generatedTracedRun(t *testing.T, requests int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{
		Seed: 3, Requests: requests, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
	}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A traced build reads the de-duplication buckets twice, in the check pass
// and the join's route pass: the join links traces from the pairs the
// check pass noted, with no pass of its own. (The owner buckets and the
// server spans are read once more.)
func TestTracedBuildReadsTheSpillTwice(t *testing.T) {
	dir := generatedTracedRun(t, 200)
	before := spanspill.Reads()
	res, err := Import(Options{Run: dir, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset.StreamedEvidence == nil || res.Dataset.Audit["joined_spans"] == 0 {
		t.Fatal("no span joined")
	}
	if n := spanspill.Reads() - before; n >= 3*minSpillBuckets {
		t.Fatalf("%d bucket reads: the %d de-duplication buckets are read three times or more", n, minSpillBuckets)
	}
}

// The bytes a traced build allocates, bounded: the passes over the spill
// decode into recycled buffers and the bucket bytes are not copied again,
// so a 1,000-request traced import (~20,000 spans, 25 MB) allocates well
// under the ~180 MB the passes allocated when each read had buffers of
// its own (BenchmarkTracedImport: 548 MB at 3,000 requests before, 267
// MB after).
func TestTracedBuildAllocationBound(t *testing.T) {
	dir := generatedTracedRun(t, 1000)
	spill := t.TempDir()
	if _, err := Import(Options{Run: dir, SpillDir: spill}); err != nil { // warm
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Import(Options{Run: dir, SpillDir: spill}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	const bound = 120 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
		t.Fatalf("a 1,000-request traced import allocated %d MB, bound %d MB", alloc>>20, bound>>20)
	} else {
		t.Logf("allocated %d MB", alloc>>20)
	}
}
