package sqlstore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/dsight/dsight/internal/model"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// bulkTables are the tables written by bulkTree rather than through
// SQLite, each with its number of key columns. Their columns are all
// numeric and their declared order puts the key first, so a row's record
// is its values in declared order (a WITHOUT ROWID table stores its
// primary key columns first, then the others in declared order).
var bulkTables = map[string]int{
	"metric_points":    3,
	"nvtx_ranges":      4,
	"server_spans":     0, // a rowid table (rowidTree)
	"lifecycle_stages": 2,
	"worker_bindings":  2,
	"requests":         0, // a rowid table (requests_bulk.go)
	"cpu_samples":      3,
}

// bulkIndexes are the secondary indexes laid out with their tables'
// rows (evidence_bulk.go). SQLite creates them, empty, with the tables,
// so the schema lists every index in the order of schema.go's indexes.
var bulkIndexes = []string{"requests_window", "requests_id", "requests_session", indexSpanRequest, indexSpanWindow, indexBindWorker}

// metricEncoders is how many goroutines inflate and encode metric series
// for the one laying out metric_points: a series' summary costs about
// four times its rows' layout.
const metricEncoders = 2

// bulkFile appends bulk tables' pages to a store SQLite has created and
// closed, and fixes the header's page count once they are in.
type bulkFile struct {
	f        *os.File
	out      *bufio.Writer
	pageSize int
	reserved int
	pages    uint32 // pages in the file
	intSmall bool   // schema format 4: 0 and 1 take no body bytes
	roots    map[string]uint32
	rows     map[string]int64
}

// The database header's fields bulkFile reads and writes
// (https://sqlite.org/fileformat.html, "The Database Header").
const (
	hdrPageSize     = 16
	hdrReserved     = 20
	hdrChange       = 24
	hdrPageCount    = 28
	hdrSchemaFormat = 44
	hdrValidFor     = 92
)

func openBulk(path string, roots map[string]uint32) (*bulkFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	var h [100]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		f.Close()
		return nil, err
	}
	b := &bulkFile{f: f, roots: roots, rows: map[string]int64{}}
	b.pageSize = int(binary.BigEndian.Uint16(h[hdrPageSize:]))
	if b.pageSize == 1 {
		b.pageSize = 65536
	}
	b.reserved = int(h[hdrReserved])
	b.pages = binary.BigEndian.Uint32(h[hdrPageCount:])
	b.intSmall = binary.BigEndian.Uint32(h[hdrSchemaFormat:]) >= 4
	if binary.BigEndian.Uint32(h[hdrChange:]) != binary.BigEndian.Uint32(h[hdrValidFor:]) {
		f.Close()
		return nil, errors.New("the database header's page count is not current")
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.Size() != int64(b.pages)*int64(b.pageSize) {
		f.Close()
		return nil, fmt.Errorf("the file holds %d bytes, the header counts %d pages of %d", fi.Size(), b.pages, b.pageSize)
	}
	if _, err := f.Seek(fi.Size(), 0); err != nil {
		f.Close()
		return nil, err
	}
	b.out = bufio.NewWriterSize(f, 1<<20)
	return b, nil
}

// tree starts table's b-tree; its pages follow the file's last page.
func (b *bulkFile) tree(table string) (*bulkTree, error) {
	root, ok := b.roots[table]
	if !ok {
		return nil, fmt.Errorf("no root page for %s", table)
	}
	return newBulkTree(b.out, b.f, b.pageSize, b.reserved, b.pages+1, root, bulkTables[table]), nil
}

// indexTree starts a secondary index's b-tree of keyCols columns (the
// indexed ones and the table's key), which may hold NULL.
func (b *bulkFile) indexTree(index string, keyCols int) (*bulkTree, error) {
	root, ok := b.roots[index]
	if !ok {
		return nil, fmt.Errorf("no root page for %s", index)
	}
	t := newBulkTree(b.out, b.f, b.pageSize, b.reserved, b.pages+1, root, keyCols)
	t.order.nullKeys = true
	return t, nil
}

// doneIndex closes an index's tree and counts its pages.
func (b *bulkFile) doneIndex(index string, t *bulkTree) error {
	if err := t.close(); err != nil {
		return fmt.Errorf("%s: %w", index, err)
	}
	b.pages = t.next - 1
	return nil
}

// maxLocal is the largest record an index b-tree page holds whole.
func (b *bulkFile) maxLocal() int { return (b.pageSize-b.reserved-12)*64/255 - 23 }

// rowidTree starts a rowid table's b-tree after the file's last page.
func (b *bulkFile) rowidTree(table string) (*rowidTree, error) {
	root, ok := b.roots[table]
	if !ok {
		return nil, fmt.Errorf("no root page for %s", table)
	}
	return newRowidTree(b.out, b.f, b.pageSize, b.reserved, b.pages+1, root), nil
}

// doneRowid closes a rowid table's tree and counts its pages and rows.
func (b *bulkFile) doneRowid(table string, t *rowidTree) error {
	if err := t.close(); err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	b.pages = t.next - 1
	b.rows[table] += t.rows
	return nil
}

// done closes table's tree and counts its pages and rows.
func (b *bulkFile) done(table string, t *bulkTree) error {
	if err := t.close(); err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	b.pages = t.next - 1
	b.rows[table] += t.rows
	return nil
}

// close flushes the pages and records the new page count in the header.
func (b *bulkFile) close() error {
	err := b.out.Flush()
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], b.pages)
	if _, werr := b.f.WriteAt(n[:], hdrPageCount); err == nil {
		err = werr
	}
	if cerr := b.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// record starts a row for this file's schema format.
func (b *bulkFile) record() *record { return &record{intSmall: b.intSmall} }

// rowRecord is a record for rows whose order is not checked on their
// values (record.valuesOnly).
func (b *bulkFile) rowRecord() *record { return &record{intSmall: b.intSmall, valuesOnly: true} }

// rootPages reads each bulk table's root page from the schema.
func (c *rawConn) rootPages() (map[string]uint32, error) {
	roots := map[string]uint32{}
	for name := range bulkTables {
		n, err := c.queryInt("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = '" + name + "'")
		if err != nil {
			return nil, fmt.Errorf("root page of %s: %w", name, err)
		}
		roots[name] = uint32(n)
	}
	for _, name := range bulkIndexes {
		n, err := c.queryInt("SELECT rootpage FROM sqlite_schema WHERE type = 'index' AND name = '" + name + "'")
		if err != nil {
			return nil, fmt.Errorf("root page of %s: %w", name, err)
		}
		roots[name] = uint32(n)
	}
	return roots, nil
}

// queryInt runs a query of one integer.
func (c *rawConn) queryInt(query string) (int64, error) {
	q, err := libc.CString(query)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(c.tls, q)
	pst := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, q, -1, pst, 0); rc != sqlite3.SQLITE_OK {
		return 0, c.errorf(rc)
	}
	st := libc.AtomicLoadNUintptr(pst, 0) // pst is C memory from tls.Alloc
	defer sqlite3.Xsqlite3_finalize(c.tls, st)
	if rc := sqlite3.Xsqlite3_step(c.tls, st); rc != sqlite3.SQLITE_ROW {
		return 0, fmt.Errorf("no row (%d)", rc)
	}
	return sqlite3.Xsqlite3_column_int64(c.tls, st, 0), nil
}

// writeBulk lays out the bulk tables' b-trees in the store SQLite has
// created and closed at path.
func (w *writer) writeBulk(path string, roots map[string]uint32, d *model.Dataset, tapped *EvidenceRows) (err error) {
	bf, err := openBulk(path, roots)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := bf.close(); err == nil {
			err = cerr
		}
		for t, n := range bf.rows {
			w.rows[t] += n
		}
	}()
	tree, err := bf.tree("metric_points")
	if err != nil {
		return err
	}
	// The summaries are inflated, decoded and their rows encoded on other
	// goroutines, series by series, and laid into pages on this one.
	series := byID(d.Metrics, func(m *model.MetricSeries) int { return m.ID })
	for k := 1; k < len(series); k++ {
		// A series' keys all begin with its id: ids in ascending order
		// put the series' rows in key order.
		if a, b := &d.Metrics[series[k-1]], &d.Metrics[series[k]]; a.ID == b.ID {
			return fmt.Errorf("metric series %d (%s) and %d (%s) share their id", a.ID, a.Name, b.ID, b.Name)
		}
	}
	if err := pipeItems(tree, metricRowMax, len(series), metricEncoders, func(k int, s *rowSink) error {
		m := &d.Metrics[series[k]]
		if !s.begin(fmt.Sprintf("metric series %d (%s)", m.ID, m.Name)) {
			return nil
		}
		return metricRows(m, s, &keyOrder{keyCols: bulkTables["metric_points"]}, bf.record())
	}); err != nil {
		return err
	}
	if err := bf.done("metric_points", tree); err != nil {
		return err
	}
	if err := w.requestsTable(d, bf); err != nil {
		return err
	}
	if err := w.evidenceTables(d, bf, filepath.Dir(path), tapped); err != nil {
		return err
	}
	w.groupSessions(d)
	if err := w.nvtxRanges(d, bf); err != nil {
		return err
	}
	return w.cpuSamples(d, bf)
}
