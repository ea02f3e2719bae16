package main

import (
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// openFor opens the report at path for one question: of the core only the
// tables and columns its answer reads, and for a question about one
// request only that request's rows of the request tables.
func openFor(path string, req wireRequest) (*report.Lazy, error) {
	named := req.named()
	skipped, skippedColumns := query.SkippedTables(req.Op, named), query.SkippedColumns(req.Op, named)
	if id, ok := askedRequest(req); ok {
		return report.OpenLazyRequest(path, skipped, skippedColumns, id)
	}
	return report.OpenLazyColumns(path, skipped, skippedColumns)
}
