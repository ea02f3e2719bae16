package catalog

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// StreamedEvidence is what EvidenceChunks encoded, as a
// model.EvidenceStream: the report writer takes its shards one at a time
// (EachPiece), and the SQL store reads the records back one chunk at a
// time, so neither needs the records held, nor, when the chunks were
// spilled, their payloads.
type StreamedEvidence struct {
	chunks   []chunk
	spill    *evidenceSpill
	n        int
	bindings *bindingIndex
	roles    []model.WorkerRole
}

// Stream finishes the chunks (as Shard does) and returns them as a stream.
func (e *EvidenceChunks) Stream() *StreamedEvidence {
	e.finish()
	return &StreamedEvidence{chunks: e.chunks, spill: e.deflate.spill, n: e.n, bindings: &e.bindings, roles: e.roles}
}

// Len is the number of requests with evidence.
func (s *StreamedEvidence) Len() int { return s.n }

// WorkerRoles lists the distinct (worker, role) pairs of the records, as
// model.WorkerRoleLister.
func (s *StreamedEvidence) WorkerRoles() []model.WorkerRole { return s.roles }

// Shard is the whole evidence shard, every chunk read back (see
// EvidenceChunks.Shard); nil when no request has evidence. The report
// writer uses EachPiece, which holds one evidence shard at a time.
func (s *StreamedEvidence) Shard() (*shard.Shard, error) {
	if s.n == 0 {
		return nil, nil
	}
	return wholeShard(s.chunks, s.spill)
}

// ChunkOverLimit is ChunkOverLimit of the stream's shard, read from the
// chunks' descriptors.
func (s *StreamedEvidence) ChunkOverLimit() (k int, size int64, over bool) {
	for k, ch := range s.chunks {
		if ch.size > MaxChunkBytes {
			return k, ch.size, true
		}
	}
	return 0, 0, false
}

// BigSpan is the span of chunk k with the most attribute bytes and how
// many (AttrBytes), for ChunkLimitError: found for a chunk over
// MaxChunkBytes only (nil and -1 for others, and for a chunk without spans).
func (s *StreamedEvidence) BigSpan(k int) (*model.Span, int) {
	if ch := s.chunks[k]; ch.size > MaxChunkBytes {
		return ch.big, ch.bigBytes
	}
	return nil, -1
}

// HeldBytes is how many bytes of deflated payload the stream holds in
// memory (not spilled).
func (s *StreamedEvidence) HeldBytes() int64 {
	var n int64
	for _, ch := range s.chunks {
		n += int64(len(ch.deflated))
	}
	return n
}

// EachPiece calls f with each evidence shard SplitEvidence cuts the
// stream's shard into for budget, in order, reading only that shard's
// chunks back: the shards are the same, byte for byte.
func (s *StreamedEvidence) EachPiece(budget int, f func(EvidencePiece) error) error {
	for _, b := range pieceBounds(len(s.chunks), func(k int) int { return chunkLen(s.chunks[k]) }, budget) {
		payload, size := make([]string, b[1]-b[0]), make([]int64, b[1]-b[0])
		for k := range payload {
			ch := s.chunks[b[0]+k]
			p, err := s.spill.payload(ch)
			if err != nil {
				return err
			}
			payload[k], size[k] = p, ch.size
		}
		if err := f(EvidencePiece{Shard: pieceShard(payload, size, b[0], len(s.chunks)), First: b[0], Chunks: b[1] - b[0]}); err != nil {
			return err
		}
	}
	return nil
}

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
