package report

import (
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
)

// OpenRows opens the core of the report at dir holding of the request
// tables requests rows alone (ascending row numbers; catalog.RowPicks),
// every table skipped names left out: the core a page of requests is
// written from once the page's rows are chosen over the whole core's
// filter columns (dsight query requests). The core must be framed.
func OpenRows(dir string, skipped func(table string) bool, rows []int) (*catalog.Core, error) {
	dir, m, err := openManifest(dir)
	if err != nil {
		return nil, err
	}
	if m.Entry.Core.Encoding != EncodingFrames {
		return nil, fmt.Errorf("core shard: stored %q, not framed", m.Entry.Core.Encoding)
	}
	keep := func(table string) bool {
		return catalog.PicksReadTable(table) && (skipped == nil || !skipped(table))
	}
	s, kept, err := readFramedPicking(dir, m.Entry.Core, keep, nil, catalog.RowPicks(rows))
	if err != nil {
		return nil, fmt.Errorf("core shard: %w", err)
	}
	return catalog.OpenRows(s, kept[catalog.TableRequests], 0, skipped, nil)
}

// CoreFramed says whether the report at path stores its core framed, and
// the decoded bytes of its requests table's frame (0 when not framed).
func CoreFramed(path string) (framed bool, requestBytes int, err error) {
	_, m, err := openManifest(path)
	if err != nil {
		return false, 0, err
	}
	framed, requestBytes = coreFramed(m)
	return framed, requestBytes, nil
}

func coreFramed(m Manifest) (framed bool, requestBytes int) {
	if m.Entry.Core.Encoding != EncodingFrames {
		return false, 0
	}
	for _, f := range m.Entry.Core.Frames {
		if f.Table == catalog.TableRequests {
			requestBytes = f.DecodedBytes
		}
	}
	return true, requestBytes
}
