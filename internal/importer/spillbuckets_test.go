package importer

import (
	"testing"

	"github.com/dsight/dsight/internal/spanspill"
)

// The de-duplication buckets grow with the OTel input, between their
// floor and their cap.
func TestSpillBucketsGrowWithTheInput(t *testing.T) {
	for _, c := range []struct {
		bytes int64
		want  int
	}{
		{0, 512},
		{100 << 20, 512},
		{2200 << 20, 550}, // the 100,000-request run's 2.2 GB: about as before
		{21 << 30, 2048},  // the million-request run's 21 GB: the cap
		{512 * 4 << 20, 512},
		{512*4<<20 + 1, 513},
	} {
		if got := spillBuckets(c.bytes); got != c.want {
			t.Errorf("spillBuckets(%d) = %d, want %d", c.bytes, got, c.want)
		}
	}
}

// However many buckets the spans are spilled to, the report is the same:
// the 3,000-request run of TestStreamedImportUnderMemoryLimit, with a
// copy of every span, spilled to the most buckets gives its shards.
func TestSpillBucketCountLeavesTheReportAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 3,000-request traced run")
	}
	run, _ := streamHeapRun(t)
	defer func(was int64) { spillInputPerBucket = was }(spillInputPerBucket)
	spillInputPerBucket = 1 // every byte a bucket: the cap
	before := spanspill.Reads()
	core, evidence := tracedShardHashes(t, Options{Run: run, SpillDir: t.TempDir()})
	if n := spanspill.Reads() - before; n < 2*maxSpillBuckets {
		t.Fatalf("%d bucket reads: the spans were not spilled to %d buckets", n, maxSpillBuckets)
	}
	if core != streamHeapGolden.core || evidence != streamHeapGolden.evidence {
		t.Fatalf("spilled to %d buckets, the shards differ:\ncore     %s (want %s)\nevidence %s (want %s)", maxSpillBuckets, core, streamHeapGolden.core, evidence, streamHeapGolden.evidence)
	}
}
