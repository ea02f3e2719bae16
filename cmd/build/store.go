package main

import (
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/sqlstore"
)

// storeWriter is the report's SQL store writer, or none with --no-sqlite.
// It lays out the evidence rows the import's join encoded into rows (nil:
// none were, and the store reads the evidence itself).
func storeWriter(skip bool, rows *sqlstore.EvidenceRows) report.StoreWriter {
	if skip {
		return nil
	}
	return sqlstore.FileWriter(rows)
}
