package sqlstore

import (
	"database/sql/driver"
	"fmt"
	"strings"
)

// batchRows is how many rows one multi-row INSERT carries: a prepared
// statement call costs about the same for one row or many, so rows go in
// groups. SQLite allows 32,766 parameters per statement; the widest table
// stays well below that at this size.
const batchRows = 128

// commitRows is how many rows a transaction holds before it commits, so a
// large store is written in bounded steps rather than one huge transaction.
const commitRows = 200_000

// inserter streams rows into one table with a prepared multi-row INSERT,
// inside the writer's current transaction. The statement is prepared on
// the writer's one connection, so it outlives each COMMIT; values go to
// the driver as they are (database/sql's conversions cost as much as the
// insert itself).
type inserter struct {
	w     *writer
	table string
	cols  int
	full  driver.Stmt // batchRows rows
	buf   []driver.NamedValue
	n     int   // values queued
	rows  int64 // rows added
}

func (w *writer) inserter(table string, cols int) (*inserter, error) {
	st, err := w.dc.PrepareContext(w.ctx, insertSQL(table, cols, batchRows))
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", table, err)
	}
	in := &inserter{w: w, table: table, cols: cols, full: st, buf: make([]driver.NamedValue, cols*batchRows)}
	for i := range in.buf {
		in.buf[i].Ordinal = i + 1
	}
	return in, nil
}

func insertSQL(table string, cols, rows int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	return "INSERT INTO " + table + " VALUES " + strings.TrimSuffix(strings.Repeat(one+",", rows), ",")
}

// value is v as a driver value: the store passes integers of every width,
// floats, strings and nil.
func value(v any) (driver.Value, error) {
	switch x := v.(type) {
	case nil, int64, float64, string:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case bool:
		return x, nil
	}
	return nil, fmt.Errorf("sqlstore: no SQL value for %T", v)
}

// add queues one row; values must number the table's columns.
func (in *inserter) add(values ...any) error {
	if len(values) != in.cols {
		return fmt.Errorf("sqlstore: %s takes %d values, got %d", in.table, in.cols, len(values))
	}
	in.rows++
	for _, v := range values {
		dv, err := value(v)
		if err != nil {
			return err
		}
		in.buf[in.n].Value = dv
		in.n++
	}
	if in.n < len(in.buf) {
		return nil
	}
	if _, err := in.full.(driver.StmtExecContext).ExecContext(in.w.ctx, in.buf); err != nil {
		return fmt.Errorf("insert into %s: %w", in.table, err)
	}
	in.n = 0
	return in.w.rowsWritten(batchRows)
}

// flush writes the queued rows that do not fill a batch.
func (in *inserter) flush() error {
	if in.n == 0 {
		return nil
	}
	if err := in.w.execArgs(insertSQL(in.table, in.cols, in.n/in.cols), in.buf[:in.n]); err != nil {
		return fmt.Errorf("insert into %s: %w", in.table, err)
	}
	in.n = 0
	return nil
}

// close flushes and releases the statement.
func (in *inserter) close() error {
	err := in.flush()
	if cerr := in.full.Close(); err == nil {
		err = cerr
	}
	return err
}
