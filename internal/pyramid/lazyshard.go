package pyramid

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/dsight/dsight/internal/shard"
)

// A question about a range reads a few of a summary's chunks: a 5 s window
// of a 200,000-row in-flight series reads 4 of its 32. Decoding the whole
// shard to answer it was a third of a `dsight query metrics` at 100,000
// requests (each of nine series' 0.6–2.8 MB decoded, its columns allocated
// and zeroed, for a few chunks read). A LazyShard keeps the raw shard, cut
// at its tables, and decodes a chunk's table only when a question needs it.

// LazyShard is a ShardKind shard's raw bytes with its tables located, from
// which chunks are decoded on demand. It is safe for concurrent use: it
// only reads the bytes it holds.
type LazyShard struct {
	raw    []byte
	chunks []shard.FrameSpan // by chunk id
}

// OpenShardLazy opens a shard written by EncodeShard: it checks the whole
// shard as Decode does (magic, version, checksum, every table's header,
// count and length), decodes the header and the index, and returns the
// pyramid with no chunk loaded and the LazyShard that loads them
// (FillChunks). A chunk's values are checked when it is loaded. A shard
// holding conflicting settings, whose check reads every exact chunk, or
// holding a single chunk is decoded whole, and lazy is nil.
func OpenShardLazy(raw []byte) (p *Pyramid, lazy *LazyShard, err error) {
	spans, err := shard.FrameSpans(raw)
	if err != nil {
		return nil, nil, err
	}
	kind, _, err := shard.DecodeHead(raw[spans[0].Start:spans[0].End])
	if err != nil {
		return nil, nil, err
	}
	if kind != ShardKind {
		return nil, nil, fmt.Errorf("shard kind is %q, want %q", kind, ShardKind)
	}
	byName := make(map[string]shard.FrameSpan, len(spans))
	for _, s := range spans[1 : len(spans)-1] {
		byName[s.Table] = s
	}
	h, ok1 := byName[HeaderTable]
	idx, ok2 := byName[IndexTable]
	if !ok1 || !ok2 {
		return nil, nil, errors.New("metric shard lacks its pyramid header or index")
	}
	_, conflicts := byName[ConflictsTable]
	if conflicts || len(spans) <= 5 { // head, header, index, one chunk, trailer
		p, err := DecodeShard(raw)
		return p, nil, err
	}
	tables, err := shard.DecodeTableFrames([][]byte{raw[h.Start:h.End], raw[idx.Start:idx.End]})
	if err != nil {
		return nil, nil, err
	}
	if p, err = Open(&tables[0], &tables[1]); err != nil {
		return nil, nil, err
	}
	lazy = &LazyShard{raw: raw, chunks: make([]shard.FrameSpan, p.chunks)}
	for id := range p.chunks {
		s, ok := byName[chunkName(id)]
		if !ok {
			return nil, nil, fmt.Errorf("metric shard lacks chunk %d", id)
		}
		lazy.chunks[id] = s
	}
	return p, lazy, nil
}

// FillChunks returns a copy of p with the chunks ids (those not loaded
// yet) decoded from s and loaded; p itself is unchanged, so answers
// reading it may run meanwhile. all reports whether every chunk of the
// copy is loaded, after which s is no longer needed.
func (s *LazyShard) FillChunks(p *Pyramid, ids []int) (q *Pyramid, all bool, err error) {
	var want []int
	for _, id := range ids {
		if id >= 0 && id < p.chunks && !p.Loaded(id) && !slices.Contains(want, id) {
			want = append(want, id)
		}
	}
	if len(want) == 0 {
		return p, p.allLoaded(), nil
	}
	frames := make([][]byte, len(want))
	for k, id := range want {
		frames[k] = s.raw[s.chunks[id].Start:s.chunks[id].End]
	}
	tables, err := shard.DecodeTableFrames(frames)
	if err != nil {
		return nil, false, err
	}
	q = p.clone()
	for k, id := range want {
		if err := q.Load(id, &tables[k]); err != nil {
			return nil, false, err
		}
	}
	return q, q.allLoaded(), nil
}

// Unloaded lists the ids of p's chunks not loaded.
func (p *Pyramid) Unloaded() []int {
	var out []int
	for id := range p.chunks {
		if !p.Loaded(id) {
			out = append(out, id)
		}
	}
	return out
}

func (p *Pyramid) allLoaded() bool {
	for id := range p.chunks {
		if !p.Loaded(id) {
			return false
		}
	}
	return true
}

// clone is a copy of p whose chunks can be loaded without touching p: the
// chunk descriptors are copied, the loaded chunks' data shared (it never
// changes once loaded), and the kept sorted runs and whole-series memo
// carried over, since the rows they came from are the same.
func (p *Pyramid) clone() *Pyramid {
	q := &Pyramid{temporal: p.temporal, minRows: p.minRows, hasLimits: p.hasLimits, rows: p.rows, chunks: p.chunks, conflicts: p.conflicts}
	q.exact = slices.Clone(p.exact)
	q.levels = slices.Clone(p.levels)
	for i := range q.levels {
		q.levels[i].chunks = slices.Clone(p.levels[i].chunks)
	}
	q.sorted = make(sortedCache, len(p.sorted))
	for i := range p.sorted {
		q.sorted[i].Store(p.sorted[i].Load())
	}
	q.whole = make([]atomic.Pointer[any], len(p.whole))
	for i := range p.whole {
		q.whole[i].Store(p.whole[i].Load())
	}
	return q
}
