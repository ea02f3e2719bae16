package report

import (
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
)

// OpenLazyRequest is OpenLazyColumns for a question about request id
// alone (dsight query request|lifecycle): of the request tables it decodes
// that request's rows only (catalog.RequestPicks), so the engine over it
// holds one request, or none when no request has the id, and answers about
// it exactly as over the whole core. Of a 100,000-request core the other
// rows' values are walked where they lie, never stored: in a fresh
// process the memory a whole decode touched was most of the question's
// time. A core not stored framed is opened as OpenLazyColumns opens it.
func OpenLazyRequest(path string, skipped func(table string) bool, skippedColumns func(table, column string) bool, id string) (*Lazy, error) {
	r, err := NewReader(path)
	if err != nil {
		return nil, err
	}
	return r.OpenLazyRequest(skipped, skippedColumns, id)
}

// OpenLazyRequest is the package's OpenLazyRequest for the report r read.
func (r *Reader) OpenLazyRequest(skipped func(table string) bool, skippedColumns func(table, column string) bool, id string) (*Lazy, error) {
	dir, m := r.dir, r.m
	if m.Entry.Core.Encoding != EncodingFrames {
		return OpenLazyColumns(dir, skipped, skippedColumns)
	}
	keep := func(table string) bool {
		return catalog.PicksReadTable(table) && (skipped == nil || !skipped(table))
	}
	s, kept, err := readFramedPicking(dir, m.Entry.Core, keep, skippedColumns, catalog.RequestPicks(id))
	if err != nil {
		return nil, fmt.Errorf("core shard: %w", err)
	}
	chunks := 0
	if ev := m.Entry.Evidence; ev != nil {
		for _, p := range ev.Shards {
			chunks = max(chunks, p.FirstChunk+p.Chunks)
		}
	}
	c, err := catalog.OpenRows(s, kept[catalog.TableRequests], chunks, skipped, skippedColumns)
	if err != nil {
		return nil, err
	}
	return &Lazy{Core: c, Dir: dir, evidence: m.Entry.Evidence}, nil
}
