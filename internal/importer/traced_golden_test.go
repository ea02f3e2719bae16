package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/shard"
	"github.com/dsight/dsight/tools/gen/synth"
)

// tracedGolden are the SHA-256 of the core and evidence shards of
// tracedGoldenRun, as the in-memory import wrote them (the core since it
// indexes worker bindings). Any change to how
// the build holds, spills or joins server evidence must keep them: the
// report is a pure function of the run, whatever the working set. (The
// core was re-pinned when it gained the worker_bindings table, and when
// the in-flight family gained its within-role stack marks and role labels,
// and when the metric shard parts gained their pack column. Both were
// re-pinned when an evidence chunk came to hold 32 records, not 64: the
// chunks and the core's chunk and slot columns are other bytes.)
var tracedGolden = struct{ core, evidence string }{
	core:     "daed5b520c7c37c51196341efa0db4cbda67eb2f18936673274df7a36b5901d8",
	evidence: "f80d1e6e07d1cd6f521584a4a57d0557578ee7b9057091e512fabd0171296331",
}

// tracedGoldenRun is a traced run with every server source and its fault
// knobs (untraced requests, a duplicate collector export, skewed and
// retried requests), large enough for several evidence chunks.
func tracedGoldenRun(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{
		Seed: 11, Requests: 700, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
		OTelUntraced: 0.1, OTelDuplicate: true, ClockOddities: true,
	}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tracedShardHashes imports a run and returns the hashes of its encoded
// core and evidence shards.
func tracedShardHashes(t testing.TB, opt Options) (core, evidence string) {
	t.Helper()
	res, err := Import(opt)
	if err != nil {
		t.Fatal(err)
	}
	hash := func(s *shard.Shard) string {
		raw, err := shard.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		return hex.EncodeToString(sum[:])
	}
	d := res.Dataset
	d.Meta.SourceRoot = "run" // the only absolute path: the test's temporary directory
	if n := len(evidenceOf(t, d)); n < 2*catalog.EvidencePerChunk {
		t.Fatalf("%d requests with evidence; the test needs several chunks", n)
	}
	return hash(catalog.Encode(d)), hash(streamedShard(t, d))
}

// The import (spans spilled, joined in passes, each request encoded as it
// is finished) writes the shards the in-memory import pinned in
// tracedGolden.
func TestTracedReportGolden(t *testing.T) {
	core, evidence := tracedShardHashes(t, Options{Run: tracedGoldenRun(t)})
	if core != tracedGolden.core || evidence != tracedGolden.evidence {
		t.Fatalf("traced report shards changed:\ncore     %s (want %s)\nevidence %s (want %s)", core, tracedGolden.core, evidence, tracedGolden.evidence)
	}
}
