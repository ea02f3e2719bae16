//go:build !js

package pyramid

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/dsight/dsight/internal/shard"
)

// The page's engine decodes a summary whole (lazyshard_js.go): opening one
// table by table and filling copies of it links shard's frame decoders
// and more, some 65 KB of a wasm near its budget, for answers the page
// does not ask often enough to pay for them.

// OpenShardLazy opens a shard written by EncodeShard: it checks the whole
// shard as Decode does (magic, version, checksum, every table's header,
// count and length), decodes the header and the index, and returns the
// pyramid with no chunk loaded and the LazyShard that loads them
// (FillChunks). A chunk's values are checked when it is loaded. A shard
// of a single chunk, or whose tables are not in AppendShard's order, is
// decoded whole and lazy is nil (as OpenShardFrames does for conflicting
// settings).
func OpenShardLazy(raw []byte) (p *Pyramid, lazy *LazyShard, err error) {
	spans, err := shard.FrameSpans(raw)
	if err != nil {
		return nil, nil, err
	}
	inOrder := len(spans) > 5 // head, header, index, two chunks or more, trailer
	for k, s := range spans[1 : len(spans)-1] {
		switch want := chunkName(k - 2); {
		case k == 0 && s.Table != HeaderTable, k == 1 && s.Table != IndexTable:
			inOrder = false
		case k >= 2 && s.Table != want && !(k == len(spans)-3 && s.Table == ConflictsTable):
			inOrder = false
		}
	}
	if !inOrder {
		p, err := DecodeShard(raw)
		return p, nil, err
	}
	return OpenShardFrames(raw[:spans[0].End], len(raw), func(k int) ([]byte, error) {
		if k < 0 || k+2 >= len(spans) {
			return nil, fmt.Errorf("metric shard has no table %d", k)
		}
		s := spans[k+1]
		return raw[s.Start:s.End], nil
	})
}

// OpenShardFrames opens a shard read table by table, as a reader of a
// segmented summary reads it (shard.Segments): head is the shard's head
// frame, shardBytes the whole raw shard's size (a report's manifest
// records it) and table(k) the raw bytes of its table k (LazyShard). It decodes
// the header and the index and returns the pyramid with no chunk loaded;
// a shard with conflicting settings, whose check reads every exact chunk,
// is loaded whole and lazy is nil. The caller vouches for the bytes (a
// report checks the payload's SHA-256); each table is checked as it is
// decoded.
func OpenShardFrames(head []byte, shardBytes int, table func(k int) ([]byte, error)) (p *Pyramid, lazy *LazyShard, err error) {
	kind, n, err := shard.DecodeHead(head)
	if err != nil {
		return nil, nil, err
	}
	if kind != ShardKind {
		return nil, nil, fmt.Errorf("shard kind is %q, want %q", kind, ShardKind)
	}
	if n < 2 {
		return nil, nil, errors.New("metric shard lacks its pyramid header or index")
	}
	lazy = &LazyShard{table: table, shardBytes: shardBytes}
	tables, err := lazy.tables([]int{0, 1}, []string{HeaderTable, IndexTable})
	if err != nil {
		return nil, nil, err
	}
	if p, err = Open(&tables[0], &tables[1]); err != nil {
		return nil, nil, err
	}
	switch n {
	case p.chunks + 2:
		return p, lazy, nil
	case p.chunks + 3:
	default:
		return nil, nil, fmt.Errorf("metric shard has %d tables for %d chunks", n, p.chunks)
	}
	p, _, err = lazy.FillChunks(p, p.Unloaded())
	if err != nil {
		return nil, nil, err
	}
	c, err := lazy.tables([]int{n - 1}, []string{ConflictsTable})
	if err != nil {
		return nil, nil, err
	}
	if err := p.LoadConflicts(&c[0]); err != nil {
		return nil, nil, err
	}
	if err := p.checkConflicts(); err != nil {
		return nil, nil, err
	}
	return p, nil, nil
}

// tables decodes tables ks, which must be named names.
func (s *LazyShard) tables(ks []int, names []string) ([]shard.Table, error) {
	frames := make([][]byte, len(ks))
	for i, k := range ks {
		b, err := s.table(k)
		if err != nil {
			return nil, err
		}
		frames[i] = b
	}
	tables, err := shard.DecodeTableFrames(frames, s.shardBytes)
	if err != nil {
		return nil, err
	}
	for i := range tables {
		if tables[i].Name != names[i] {
			return nil, layoutErr("table %d is %q, want %q", ks[i], tables[i].Name, names[i])
		}
	}
	return tables, nil
}

// FillChunks returns a copy of p with the chunks ids (those not loaded
// yet) decoded from s and loaded; p itself is unchanged, so answers
// reading it may run meanwhile. all reports whether every chunk of the
// copy is loaded, after which s is no longer needed.
func (s *LazyShard) FillChunks(p *Pyramid, ids []int) (q *Pyramid, all bool, err error) {
	var want []int
	var names []string
	for _, id := range ids {
		if id >= 0 && id < p.chunks && !p.Loaded(id) && !slices.Contains(want, id) {
			want = append(want, id)
			names = append(names, chunkName(id))
		}
	}
	if len(want) == 0 {
		return p, p.allLoaded(), nil
	}
	ks := make([]int, len(want))
	for i, id := range want {
		ks[i] = 2 + id
	}
	tables, err := s.tables(ks, names)
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

func (p *Pyramid) allLoaded() bool {
	for id := range p.chunks {
		if !p.Loaded(id) {
			return false
		}
	}
	return true
}
