package report

import (
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
)

// Reader is one report opened for the several reads of its core a
// question may make: dsight query requests chooses its page over the
// request table's filter columns, then decodes the page's rows from the
// same table. The manifest is read once, and each frame of a framed core
// is read, checked and inflated once, whichever read asks for it first
// (reading the 6.5 MB requests frame of a 100,000-request core twice was
// a third of such a question). A Reader is for one question: it keeps
// every frame it has read.
type Reader struct {
	dir    string
	m      Manifest
	frames map[int][]byte // checked raw frames by payload offset
}

// NewReader reads the manifest of the report at path.
func NewReader(path string) (*Reader, error) {
	dir, m, err := openManifest(path)
	if err != nil {
		return nil, err
	}
	return &Reader{dir: dir, m: m, frames: map[int][]byte{}}, nil
}

// CoreFramed says whether r's report stores its core framed, and the
// decoded bytes of its requests table's frame (0 when not framed).
func (r *Reader) CoreFramed() (framed bool, requestBytes int) {
	if r.m.Entry.Core.Encoding != EncodingFrames {
		return false, 0
	}
	for _, f := range r.m.Entry.Core.Frames {
		if f.Table == catalog.TableRequests {
			requestBytes = f.DecodedBytes
		}
	}
	return true, requestBytes
}

// OpenLazyColumns is the package's OpenLazyColumns over r's frames.
func (r *Reader) OpenLazyColumns(skipped func(table string) bool, skippedColumns func(table, column string) bool) (*Lazy, error) {
	if r.m.Entry.Core.Encoding != EncodingFrames {
		return OpenLazyColumns(r.dir, skipped, skippedColumns)
	}
	keep := func(table string) bool { return skipped == nil || !skipped(table) }
	s, _, err := readFramedHeld(r.dir, r.m.Entry.Core, keep, skippedColumns, nil, r.frames)
	if err != nil {
		return nil, fmt.Errorf("core shard: %w", err)
	}
	c, err := catalog.OpenColumns(s, skipped, skippedColumns)
	if err != nil {
		return nil, err
	}
	return &Lazy{Core: c, Dir: r.dir, evidence: r.m.Entry.Evidence}, nil
}

// OpenRows opens r's core holding of the request tables requests rows
// alone (ascending row numbers; catalog.RowPicks), every table skipped
// names left out: the core a page of requests is written from once the
// page's rows are chosen over the whole core's filter columns (dsight
// query requests). The core must be framed.
func (r *Reader) OpenRows(skipped func(table string) bool, rows []int) (*catalog.Core, error) {
	if r.m.Entry.Core.Encoding != EncodingFrames {
		return nil, fmt.Errorf("core shard: stored %q, not framed", r.m.Entry.Core.Encoding)
	}
	keep := func(table string) bool {
		return catalog.PicksReadTable(table) && (skipped == nil || !skipped(table))
	}
	s, kept, err := readFramedHeld(r.dir, r.m.Entry.Core, keep, nil, catalog.RowPicks(rows), r.frames)
	if err != nil {
		return nil, fmt.Errorf("core shard: %w", err)
	}
	return catalog.OpenRows(s, kept[catalog.TableRequests], 0, skipped, nil)
}

// CoreReadBytes is how many bytes the frames of r's core a question reads
// decode to, the tables skipped names left out: about the fresh memory its
// open will touch, known before any frame is read. A core not stored
// framed is read whole.
func (r *Reader) CoreReadBytes(skipped func(table string) bool) int {
	core := r.m.Entry.Core
	if core.Encoding != EncodingFrames {
		return core.DecodedBytes
	}
	n := 0
	for _, f := range core.Frames {
		if f.Table == "" || skipped == nil || !skipped(f.Table) {
			n += f.DecodedBytes
		}
	}
	return n
}
