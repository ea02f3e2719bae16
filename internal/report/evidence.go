package report

import (
	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// evidenceShard is the dataset's evidence shard: the one the import
// encoded as its join finished each request (catalog.EvidenceShard reads
// it back), or records a caller built encoded now; nil when the run has
// none.
func evidenceShard(d *model.Dataset) (*shard.Shard, error) {
	return catalog.EvidenceShard(d)
}

// evidenceCount is the number of requests with server evidence.
func evidenceCount(d *model.Dataset) int {
	if d.StreamedEvidence != nil {
		return d.StreamedEvidence.Len()
	}
	return len(d.Evidence)
}
