package report

// OpenLazyTables is OpenLazy for one question: it decodes none of the core
// tables skipped names (query.SkippedTables says which an answer does not
// read), so the engine over it answers that question as over the whole
// core, and only that question.
func OpenLazyTables(path string, skipped func(table string) bool) (*Lazy, error) {
	dir, m, c, err := openCoreTables(path, skipped)
	if err != nil {
		return nil, err
	}
	return &Lazy{Core: c, Dir: dir, evidence: m.Entry.Evidence}, nil
}

// OpenLazyColumns is OpenLazyTables decoding none of the core columns
// skippedColumns names either (query.SkippedColumns): a summary reads the
// request table's row count and the columns its engine indexes, not the
// rest of its values.
func OpenLazyColumns(path string, skipped func(table string) bool, skippedColumns func(table, column string) bool) (*Lazy, error) {
	dir, m, c, err := openCoreColumns(path, skipped, skippedColumns)
	if err != nil {
		return nil, err
	}
	return &Lazy{Core: c, Dir: dir, evidence: m.Entry.Evidence}, nil
}
