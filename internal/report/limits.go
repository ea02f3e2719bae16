package report

import (
	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// checkChunkLimits refuses a report whose readers would refuse it: an
// evidence chunk over catalog.MaxChunkBytes fails every question about its
// requests in the CLI and the page. The error names the largest span of the
// chunk by file:line, the record that has to shrink. (A build that streams
// its evidence checks each chunk as it encodes it, in the importer.)
func checkChunkLimits(d *model.Dataset, s *shard.Shard) error {
	table, k, size, over := catalog.ChunkOverLimit(s)
	if !over {
		return nil
	}
	var spans []*model.Span
	lo := k * catalog.EvidencePerChunk
	if table == catalog.TableServerChunks {
		for i := lo; i < min(len(d.Evidence), lo+catalog.EvidencePerChunk); i++ {
			for _, js := range d.Evidence[i].Spans {
				spans = append(spans, js.Span)
			}
		}
	} else {
		for i := lo; i < min(len(d.ServerSpans), lo+catalog.EvidencePerChunk); i++ {
			spans = append(spans, d.ServerSpans[i].Span)
		}
	}
	var big *model.Span
	bigBytes := -1
	for _, sp := range spans {
		if n := catalog.AttrBytes(sp.Attrs); n > bigBytes {
			big, bigBytes = sp, n
		}
	}
	return catalog.ChunkLimitError(k, size, big, bigBytes)
}
