package report

import (
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// checkChunkLimits refuses a report whose readers would refuse it: an
// evidence chunk over catalog.MaxChunkBytes fails every question about its
// requests in the CLI and the page. The error names the largest span of the
// chunk by file:line, the record that has to shrink.
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
		if n := attrBytes(sp.Attrs); n > bigBytes {
			big, bigBytes = sp, n
		}
	}
	where := ""
	if big != nil {
		where = fmt.Sprintf("%s:%d: span %q carries %d bytes of attributes; ", big.Ref.Path, big.Ref.Line, big.Name, bigBytes)
	}
	return fmt.Errorf("%sserver evidence chunk %d encodes to %d bytes, over the %d every reader of the report accepts (rebuild with --no-otel to keep client timing, bridges and bindings)", where, k, size, catalog.MaxChunkBytes)
}

// attrBytes approximates the stored size of attributes: their keys and
// string values, which is what can make a span large.
func attrBytes(a model.Attributes) int {
	n := 0
	for _, kv := range a {
		n += len(kv.Key) + valueBytes(kv.Value)
	}
	return n
}

func valueBytes(v model.Value) int {
	switch v.Kind() {
	case model.KindString:
		s, _ := v.Str()
		return len(s)
	case model.KindBytes:
		b, _ := v.Bytes()
		return len(b)
	case model.KindArray:
		vs, _ := v.Array()
		n := 0
		for _, x := range vs {
			n += valueBytes(x)
		}
		return n
	case model.KindKVList:
		kv, _ := v.KVList()
		return attrBytes(kv)
	}
	return 8
}
