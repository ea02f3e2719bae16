package sqlstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Trees that cross the 1 GiB offset leave SQLite's lock-byte page unused:
// SQLite reports a file whose data reaches into it as malformed. The file
// is grown sparse to just below that page, so the test writes little.
func TestTreesSkipTheLockBytePage(t *testing.T) {
	const pageSize = 65536
	path := filepath.Join(t.TempDir(), "l.sqlite")
	c, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA page_size=65536",
		`CREATE TABLE t(a INTEGER, b REAL, c INTEGER, v REAL, PRIMARY KEY(a, b, c)) WITHOUT ROWID`,
		`CREATE TABLE r(id INTEGER PRIMARY KEY, s TEXT)`} {
		if _, err := c.ExecContext(context.Background(), q, nil); err != nil {
			t.Fatal(err)
		}
	}
	roots := map[string]uint32{}
	for _, name := range []string{"t", "r"} {
		n, err := c.queryInt("SELECT rootpage FROM sqlite_schema WHERE name = '" + name + "'")
		if err != nil {
			t.Fatal(err)
		}
		roots[name] = uint32(n)
	}
	c.Close()
	below := lockPage(pageSize) - 3
	if err := os.Truncate(path, int64(below)*pageSize); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], below)
	if _, err := f.WriteAt(n[:], hdrPageCount); err != nil {
		t.Fatal(err)
	}
	f.Close()

	bf, err := openBulk(path, roots)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := bf.tree("t")
	if err != nil {
		t.Fatal(err)
	}
	tree.order.keyCols = 3
	rec := bf.record()
	const rows = 20_000
	for k := range rows {
		a, b, cc, v := bulkRow(k)
		rec.reset()
		rec.int(a)
		rec.real(b)
		rec.int(cc)
		if v == nil {
			rec.null()
		} else {
			rec.real(v.(float64))
		}
		if err := tree.add(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := bf.done("t", tree); err != nil {
		t.Fatal(err)
	}
	rt, err := bf.rowidTree("r")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 5*pageSize)
	for k := range 3 {
		rec.reset()
		rec.null()
		rec.text(long)
		if err := rt.add(int64(k), rec.bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if err := bf.doneRowid("r", rt); err != nil {
		t.Fatal(err)
	}
	if err := bf.close(); err != nil {
		t.Fatal(err)
	}
	if bf.pages <= lockPage(pageSize) {
		t.Fatalf("the trees end at page %d, before the lock-byte page %d", bf.pages, lockPage(pageSize))
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var count int
	var sum float64
	if err := db.QueryRow("SELECT count(*), total(v) FROM t").Scan(&count, &sum); err != nil || count != rows {
		t.Fatalf("t: %d rows (%v)", count, err)
	}
	var texts, length int
	if err := db.QueryRow("SELECT count(*), sum(length(s)) FROM r").Scan(&texts, &length); err != nil || texts != 3 || length != 3*len(long) {
		t.Fatalf("r: %d rows of %d bytes (%v)", texts, length, err)
	}
}
