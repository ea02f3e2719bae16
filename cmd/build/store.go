package main

import (
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/sqlstore"
)

// storeWriter is the report's SQL store writer, or none with --no-sqlite.
func storeWriter(skip bool) report.StoreWriter {
	if skip {
		return nil
	}
	return sqlstore.WriteFile
}
