package catalog

import (
	"fmt"

	"github.com/dsight/dsight/internal/shard"
)

// A report stores its server evidence as several independent evidence
// shards ("pieces"), each a run of whole chunks small enough to be one
// payload script: the page hands each to the engine as it arrives, so
// loading, decoding, verifying and attaching overlap, and the CLI reads
// only the piece holding the request it is asked about. A piece is an
// evidence shard (EvidenceKind, table server_chunks) with one more table,
// evidence_piece, saying where its chunks lie among the report's
// (docs/format/evidence.md).

// TableEvidencePiece names the table that places a piece's chunks.
const TableEvidencePiece = "evidence_piece"

// EvidencePiece is one piece of a split evidence shard.
type EvidencePiece struct {
	Shard *shard.Shard
	// First is the index of the piece's first chunk; Chunks how many it holds.
	First, Chunks int
}

// pieceRowOverhead bounds what a chunk row adds to a piece's encoding
// besides its payload: the payload's length prefix, its index and its
// inflated size (uvarints of at most 10 bytes each).
const pieceRowOverhead = 30

// SplitEvidence cuts a whole evidence shard into pieces of consecutive
// chunks whose payloads total at most budget bytes (a chunk larger than
// budget is a piece alone). The pieces share the chunks' strings: nothing
// is copied.
func SplitEvidence(s *shard.Shard, budget int) ([]EvidencePiece, error) {
	if s.Kind != EvidenceKind {
		return nil, fmt.Errorf("shard kind is %q, want %q", s.Kind, EvidenceKind)
	}
	if _, ok := s.Table(TableEvidencePiece); ok {
		return nil, fmt.Errorf("evidence shard is a piece already")
	}
	o := opener{s: s}
	t := o.table(TableServerChunks)
	if o.err != nil {
		return nil, fmt.Errorf("evidence shard: %w", o.err)
	}
	payload, size := o.strs(t, "payload"), o.ints(t, "bytes")
	if o.err != nil {
		return nil, fmt.Errorf("evidence shard: %w", o.err)
	}
	var pieces []EvidencePiece
	for _, b := range pieceBounds(len(payload), func(k int) int { return len(payload[k]) }, budget) {
		first, end := b[0], b[1]
		pieces = append(pieces, EvidencePiece{Shard: pieceShard(payload[first:end], size[first:end], first, len(payload)), First: first, Chunks: end - first})
	}
	return pieces, nil
}

// pieceBounds cuts n chunks, chunk k's payload size(k) bytes long, into
// runs [first, end) as SplitEvidence does; a streamed build cuts its
// chunks by the same rule before it reads them back (StreamedEvidence.EachPiece).
func pieceBounds(n int, size func(k int) int, budget int) [][2]int {
	var out [][2]int
	for first := 0; first < n; {
		end, used := first, 0
		for end < n && (end == first || used+size(end)+pieceRowOverhead <= budget) {
			used += size(end) + pieceRowOverhead
			end++
		}
		out = append(out, [2]int{first, end})
		first = end
	}
	return out
}

func pieceShard(payload []string, size []int64, first, total int) *shard.Shard {
	n := len(payload)
	return &shard.Shard{Kind: EvidenceKind, Tables: []shard.Table{
		{Name: TableServerChunks, Rows: n, Columns: []shard.Column{
			strCol("payload", n, func(k int) string { return payload[k] }),
			intCol("bytes", n, func(k int) int64 { return size[k] }),
		}},
		{Name: TableEvidencePiece, Rows: 1, Columns: []shard.Column{
			intCol("first", 1, func(int) int64 { return int64(first) }),
			intCol("of", 1, func(int) int64 { return int64(total) }),
		}},
	}}
}

// evidenceChunkCount is the number of evidence chunks the core's
// request_server rows point into. Once a piece is attached it is the
// length of chunkHeld: every later piece is checked against it, where a
// walk of every request's row per piece made each evidence shard the page
// gives cost in proportion to the run's requests.
func (c *Core) evidenceChunkCount() int {
	if c.chunkCount > 0 { // a core of some requests only (OpenRows)
		return c.chunkCount
	}
	if c.chunkHeld != nil {
		return len(c.chunkHeld)
	}
	n := 0
	for _, ch := range c.Server.Chunk {
		n = max(n, int(ch)+1)
	}
	return n
}

// attachPiece adds one piece's chunks (see AttachEvidence).
func (c *Core) attachPiece(o *opener, t *shard.Table, payload []string, size []int64) error {
	first, of := o.ints(t, "first"), o.ints(t, "of")
	if o.err != nil {
		return fmt.Errorf("evidence shard: %w", o.err)
	}
	if t.Rows != 1 {
		return fmt.Errorf("evidence shard: table %s has %d rows, want 1", TableEvidencePiece, t.Rows)
	}
	want := c.evidenceChunkCount()
	if of[0] != int64(want) {
		return fmt.Errorf("evidence shard: a piece of %d chunks' evidence, but this report's requests point into %d (the report files are out of step)", of[0], want)
	}
	if first[0] < 0 || first[0] > of[0] || int64(len(payload)) > of[0]-first[0] {
		return fmt.Errorf("evidence shard: chunks %d..%d outside 0..%d", first[0], first[0]+int64(len(payload)), of[0])
	}
	if c.chunkHeld == nil {
		c.ServerChunks, c.ServerChunkBytes = make([]string, want), make([]int64, want)
		c.chunkHeld, c.chunksMissing = make([]bool, want), want
	}
	for k := range payload {
		at := int(first[0]) + k
		if !c.chunkHeld[at] {
			c.chunkHeld[at] = true
			c.chunksMissing--
		}
		c.ServerChunks[at], c.ServerChunkBytes[at] = payload[k], size[k]
	}
	return nil
}

// HasChunk says whether evidence chunk k can be read: its shard (the
// whole evidence or the piece holding it) is attached.
func (c *Core) HasChunk(k int) bool {
	if c.chunkHeld == nil {
		return c.ServerChunks != nil && k >= 0 && k < len(c.ServerChunks)
	}
	return k >= 0 && k < len(c.chunkHeld) && c.chunkHeld[k]
}

// MissingChunks lists the evidence chunks the core's requests point into
// that are not attached yet, in order (none once the evidence is whole).
func (c *Core) MissingChunks() []int {
	if c.HasEvidence() {
		return nil
	}
	var out []int
	for k := range c.evidenceChunkCount() {
		if !c.HasChunk(k) {
			out = append(out, k)
		}
	}
	return out
}

// HasRequestEvidence says whether the evidence of request_server row k
// can be read.
func (c *Core) HasRequestEvidence(k int) bool { return c.HasChunk(int(c.Server.Chunk[k])) }
