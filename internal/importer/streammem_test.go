package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/heappeak"
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

// streamHeapGolden are the SHA-256 of the core and evidence shards of
// streamHeapRun, as the in-memory import wrote them (it peaked at
// streamHeldPeak bytes of heap doing so, every decoded span held until
// the join). The core was re-pinned since for the in-flight family's
// within-role stack marks and role labels, and for the pack column of the
// metric shard parts (report format 8), and both for evidence chunks of
// 32 records (report format 10).
var streamHeapGolden = struct{ core, evidence string }{
	core:     "579865be36801a59f60587ba7327b740dbd5214b3dc6416a5ccefc2bbc0b6161",
	evidence: "76fc5dcfc6eb56c6f60b697e5b95e7a09eb71a459af01f836f4280f8439ab161",
}

// streamHeldPeak is the peak heap of the in-memory import of
// streamHeapRun, measured before the import streamed its spans: more than
// twice streamHeapLimit (157,522,656 bytes by heappeak.During).
const streamHeldPeak = 150 << 20

// A traced run imported under a memory limit the in-memory import
// exceeded gives the shards the in-memory import gave.
func TestStreamedImportUnderMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 3,000-request traced run")
	}
	run, sum := streamHeapRun(t)
	if streamHeldPeak <= 2*streamHeapLimit {
		t.Fatalf("the held import peaked at %d bytes, within twice the limit: the run does not show the bound", streamHeldPeak)
	}
	old := debug.SetMemoryLimit(streamHeapLimit)
	defer debug.SetMemoryLimit(old)
	var streamed *Result
	var err error
	streamedPeak := heappeak.During(func() { streamed, err = Import(Options{Run: run}) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d spans: peak heap %.1f MB (limit %d MB; the in-memory import needed %.1f MB)", sum.Spans, float64(streamedPeak)/(1<<20), streamHeapLimit>>20, float64(streamHeldPeak)/(1<<20))
	if streamedPeak > streamHeapLimit {
		t.Fatalf("the streamed import peaked at %d bytes of heap, over its %d limit", streamedPeak, streamHeapLimit)
	}
	d := streamed.Dataset
	d.Meta.SourceRoot = "run" // the only absolute path: the test's temporary directory
	hash := func(s *shard.Shard) string {
		raw, err := shard.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		return hex.EncodeToString(sum[:])
	}
	core, evidence := hash(catalog.Encode(d)), hash(streamedShard(t, d))
	if core != streamHeapGolden.core || evidence != streamHeapGolden.evidence {
		t.Fatalf("the streamed import's shards differ from the in-memory import's:\ncore     %s (want %s)\nevidence %s (want %s)", core, streamHeapGolden.core, evidence, streamHeapGolden.evidence)
	}
}
