package main

import (
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// openFor opens the report at path for one question: of the core only the
// tables and columns its answer reads, for a question about one request
// only that request's rows of the request tables, and for a page of
// requests only the columns choosing the page reads (pagesFromRows).
func openFor(path string, req wireRequest) (*report.Lazy, error) {
	rep, _, err := openReading(path, req)
	return rep, err
}

// openReading is openFor also returning the reader it opened with (nil
// for one request's question): it holds the manifest and the frames read,
// for pagesFromReader to read no frame twice.
func openReading(path string, req wireRequest) (*report.Lazy, *report.Reader, error) {
	named := req.named()
	skipped, skippedColumns := query.SkippedTables(req.Op, named), query.SkippedColumns(req.Op, named)
	r, err := report.NewReader(path)
	if err != nil {
		return nil, nil, err
	}
	if r.CoreReadBytes(skipped) >= hugeHeapFrom {
		adviseHeap()
	}
	if id, ok := askedRequest(req); ok {
		rep, err := r.OpenLazyRequest(skipped, skippedColumns, id)
		return rep, nil, err
	}
	if cols := query.PageColumns(req.Op, named); cols != nil && pagesPay(r) {
		skippedColumns = cols
	}
	rep, err := r.OpenLazyColumns(skipped, skippedColumns)
	return rep, r, err
}

// pagesFromRows makes e, opened by openFor, write a page of requests from
// the page's rows alone, decoded when the page is chosen.
func pagesFromRows(e *query.Engine, path string, req wireRequest) {
	r, err := report.NewReader(path)
	if err != nil {
		return // the open that made e read this manifest
	}
	pagesFromReader(e, r, req)
}

// pagesFromReader is pagesFromRows reading the page's rows through r.
func pagesFromReader(e *query.Engine, r *report.Reader, req wireRequest) {
	named := req.named()
	if r == nil || query.PageColumns(req.Op, named) == nil || !pagesPay(r) {
		return
	}
	skipped := query.SkippedTables(req.Op, named)
	e.WritePagesFrom(func(rows []int) (*query.Engine, error) {
		c, err := r.OpenRows(skipped, rows)
		if err != nil {
			return nil, err
		}
		return query.New(c)
	})
}

// pagesPay says whether a page of requests is worth choosing over the
// filter columns and then writing from its rows alone, which reads the
// requests frame twice: on a framed core whose requests table decodes to
// at least pageRowsFrom bytes. Below that one whole decode is sooner (a
// scale-10 run's 127 KB table: 85 ms p50 whole against 97 ms in two
// passes for `requests --min-ttft-ms 500 --limit 1000`). A core that is
// not framed is opened whole.
func pagesPay(r *report.Reader) bool {
	ok, requestBytes := r.CoreFramed()
	return ok && requestBytes >= pageRowsFrom
}

// pageRowsFrom is the requests table size, decoded, from which pagesPay
// chooses the two passes; tests lower it to take that path on small runs.
var pageRowsFrom = 1 << 20
