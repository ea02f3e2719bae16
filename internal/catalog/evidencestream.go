package catalog

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// StreamedEvidence is what EvidenceChunks encoded, as a
// model.EvidenceStream: the report writer takes its shard as is, and the
// SQL store reads the records back one chunk at a time, so neither needs
// the records held.
type StreamedEvidence struct {
	chunks   []chunk
	n        int
	sh       *shard.Shard
	bindings *bindingIndex
	roles    []model.WorkerRole
}

// Stream finishes the chunks (as Shard does) and returns them as a stream.
func (e *EvidenceChunks) Stream() *StreamedEvidence {
	sh := e.Shard()
	return &StreamedEvidence{chunks: e.chunks, n: e.n, sh: sh, bindings: &e.bindings, roles: e.roles}
}

// Len is the number of requests with evidence.
func (s *StreamedEvidence) Len() int { return s.n }

// WorkerRoles lists the distinct (worker, role) pairs of the records, as
// model.WorkerRoleLister.
func (s *StreamedEvidence) WorkerRoles() []model.WorkerRole { return s.roles }

// Shard is the evidence shard; nil when no request has evidence.
func (s *StreamedEvidence) Shard() *shard.Shard { return s.sh }

// Each decodes the chunks in order and calls f with each request's
// evidence, the records a reader of the report decodes.
//
// The chunks are inflated and decoded ahead on another goroutine (the
// readers, such as the SQL store, spend as long again on each record);
// f sees the records in order, and the first error in that order is the
// one returned.
func (s *StreamedEvidence) Each(f func(k int, ev *model.RequestEvidence) error) error {
	next, stop := s.decodeAhead()
	defer stop()
	for c := range s.chunks {
		d := <-next
		for slot, ev := range d.evs {
			if err := f(c*EvidencePerChunk+slot, ev); err != nil {
				return err
			}
		}
		if d.err != nil {
			return d.err
		}
	}
	return nil
}

// ChunkLimitError is the refusal of an evidence chunk over MaxChunkBytes,
// naming big, the span of the chunk with the most attribute bytes
// (bigBytes, by AttrBytes; big is nil when the chunk has no span), the
// record to shrink.
func ChunkLimitError(k int, size int64, big *model.Span, bigBytes int) error {
	where := ""
	if big != nil {
		where = fmt.Sprintf("%s:%d: span %q carries %d bytes of attributes; ", big.Ref.Path, big.Ref.Line, big.Name, bigBytes)
	}
	return fmt.Errorf("%sserver evidence chunk %d encodes to %d bytes, over the %d every reader of the report accepts (rebuild with --no-otel to keep client timing, bridges and bindings)", where, k, size, MaxChunkBytes)
}

// AttrBytes approximates the stored size of attributes: their keys and
// string values, which is what can make a span large.
func AttrBytes(a model.Attributes) int {
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
		return AttrBytes(kv)
	}
	return 8
}
