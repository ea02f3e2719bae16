package report

import (
	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// encodedEvidence is a streamed build's evidence, already a shard.
type encodedEvidence interface{ Shard() *shard.Shard }

// evidenceShard is the dataset's evidence shard: the one a streaming build
// encoded as its join finished each request, or the held records encoded
// now; nil when the run has none.
func evidenceShard(d *model.Dataset) *shard.Shard {
	if e, ok := d.StreamedEvidence.(encodedEvidence); ok {
		return e.Shard()
	}
	return catalog.EncodeEvidence(d)
}

// evidenceCount is the number of requests with server evidence.
func evidenceCount(d *model.Dataset) int {
	if d.StreamedEvidence != nil {
		return d.StreamedEvidence.Len()
	}
	return len(d.Evidence)
}
