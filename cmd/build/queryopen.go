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
	named := req.named()
	skipped, skippedColumns := query.SkippedTables(req.Op, named), query.SkippedColumns(req.Op, named)
	if id, ok := askedRequest(req); ok {
		return report.OpenLazyRequest(path, skipped, skippedColumns, id)
	}
	if cols := query.PageColumns(req.Op, named); cols != nil && framed(path) {
		return report.OpenLazyColumns(path, skipped, cols)
	}
	return report.OpenLazyColumns(path, skipped, skippedColumns)
}

// pagesFromRows makes e, opened by openFor, write a page of requests from
// the page's rows alone, decoded when the page is chosen.
func pagesFromRows(e *query.Engine, path string, req wireRequest) {
	named := req.named()
	if query.PageColumns(req.Op, named) == nil || !framed(path) {
		return
	}
	skipped := query.SkippedTables(req.Op, named)
	e.WritePagesFrom(func(rows []int) (*query.Engine, error) {
		c, err := report.OpenRows(path, skipped, rows)
		if err != nil {
			return nil, err
		}
		return query.New(c)
	})
}

// framed says whether the report at path stores its core framed, as every
// report of the current format does; any other is opened whole.
func framed(path string) bool {
	ok, err := report.CoreFramed(path)
	return err == nil && ok
}
