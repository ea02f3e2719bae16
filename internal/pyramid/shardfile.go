package pyramid

import (
	"errors"
	"fmt"

	"github.com/dsight/dsight/internal/shard"
)

// ShardKind names a shard that holds one series' whole summary: the header,
// the chunk index, every chunk and, when there are any, a Setting series'
// conflicting points, as Tables lays them out.
const ShardKind = "metric"

// EncodeShard writes p as one shard of kind ShardKind.
func (p *Pyramid) EncodeShard() ([]byte, error) { return p.AppendShard(nil) }

// AppendShard appends what EncodeShard writes to dst.
func (p *Pyramid) AppendShard(dst []byte) ([]byte, error) {
	l, err := p.Tables()
	if err != nil {
		return nil, err
	}
	tables := append([]shard.Table{l.Header, l.Index}, l.Chunks...)
	if l.Conflicts != nil {
		tables = append(tables, *l.Conflicts)
	}
	return shard.AppendEncode(dst, &shard.Shard{Kind: ShardKind, Tables: tables})
}

// DecodeShard opens a shard written by EncodeShard with every chunk loaded.
func DecodeShard(raw []byte) (*Pyramid, error) {
	s, err := shard.Decode(raw)
	if err != nil {
		return nil, err
	}
	return FromShard(s)
}

// FromShard opens a decoded ShardKind shard with every chunk loaded.
func FromShard(s *shard.Shard) (*Pyramid, error) {
	if s.Kind != ShardKind {
		return nil, fmt.Errorf("shard kind is %q, want %q", s.Kind, ShardKind)
	}
	h, ok1 := s.Table(HeaderTable)
	idx, ok2 := s.Table(IndexTable)
	if !ok1 || !ok2 {
		return nil, errors.New("metric shard lacks its pyramid header or index")
	}
	p, err := Open(h, idx)
	if err != nil {
		return nil, err
	}
	for id := range p.ChunkCount() {
		t, ok := s.Table(chunkName(id))
		if !ok {
			return nil, fmt.Errorf("metric shard lacks chunk %d", id)
		}
		if err := p.Load(id, t); err != nil {
			return nil, err
		}
	}
	if t, ok := s.Table(ConflictsTable); ok {
		if err := p.LoadConflicts(t); err != nil {
			return nil, err
		}
		if err := p.checkConflicts(); err != nil {
			return nil, err
		}
	}
	return p, nil
}
