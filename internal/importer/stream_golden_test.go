package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/shard"
)

// The streamed import (spans spilled, joined in passes, each request
// encoded as it is finished) writes the shards the in-memory import
// pinned in tracedGolden, and the same counters and warnings.
func TestStreamedTracedReportGolden(t *testing.T) {
	run := tracedGoldenRun(t)
	res, err := Import(Options{Run: run, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if len(d.Evidence) != 0 || d.StreamedEvidence == nil {
		t.Fatalf("streamed import holds %d evidence records, stream %v", len(d.Evidence), d.StreamedEvidence)
	}
	hash := func(s *shard.Shard) string {
		raw, err := shard.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		return hex.EncodeToString(sum[:])
	}
	d.Meta.SourceRoot = "run"
	core, evidence := hash(catalog.Encode(d)), hash(d.StreamedEvidence.(*catalog.StreamedEvidence).Shard())
	if core != tracedGolden.core || evidence != tracedGolden.evidence {
		t.Fatalf("streamed shards differ from the pinned in-memory ones:\ncore     %s (want %s)\nevidence %s (want %s)", core, tracedGolden.core, evidence, tracedGolden.evidence)
	}
	held, err := Import(Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	h := held.Dataset
	h.Meta.SourceRoot = "run"
	if !reflect.DeepEqual(d.Meta, h.Meta) || !reflect.DeepEqual(d.Audit, h.Audit) {
		t.Fatalf("streamed meta/audit differ:\n%+v\n%+v\n%v\n%v", d.Meta, h.Meta, d.Audit, h.Audit)
	}
	if d.StreamedEvidence.Len() != len(h.Evidence) {
		t.Fatalf("%d streamed records, %d held", d.StreamedEvidence.Len(), len(h.Evidence))
	}
}
