package importer

import (
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// evidenceOf is a dataset's server evidence as records, decoded from the
// chunks the import encoded (Dataset.StreamedEvidence): what a reader of
// the report gets back, request k at index k.
func evidenceOf(t testing.TB, d *model.Dataset) []model.RequestEvidence {
	t.Helper()
	if len(d.Evidence) != 0 {
		t.Fatalf("the import holds %d evidence records instead of encoding them", len(d.Evidence))
	}
	if d.StreamedEvidence == nil {
		return nil
	}
	out := make([]model.RequestEvidence, 0, d.StreamedEvidence.Len())
	if err := d.StreamedEvidence.Each(func(k int, ev *model.RequestEvidence) error {
		out = append(out, *ev) // Each's records are decoded afresh (catalog.EvidenceChunk.Request)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// streamedShard is the import's evidence shard, read back whole.
func streamedShard(t testing.TB, d *model.Dataset) *shard.Shard {
	t.Helper()
	sh, err := d.StreamedEvidence.(*catalog.StreamedEvidence).Shard()
	if err != nil {
		t.Fatal(err)
	}
	return sh
}
