package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bulkRow is row k of the test table t(a, b, c, v): keys spread over
// several a values, b real, c repeating, v NULL every seventh row, and
// integers of every serial width.
func bulkRow(k int) (a int64, b float64, c int64, v any) {
	a = int64(k / 997)
	b = float64(k%997) / 8
	c = []int64{0, 1, -1, 200, 40_000, 1 << 20, 1 << 40, math.MinInt64}[k%8]
	if k%7 != 3 {
		v = float64(k) * 1.5
	}
	return
}

// bulkStore creates t as the store declares bulk tables, lays n rows out
// with bulkTree and returns the file.
func bulkStore(t *testing.T, pageSize, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b.sqlite")
	c, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{
		fmt.Sprintf("PRAGMA page_size=%d", pageSize),
		`CREATE TABLE t(a INTEGER, b REAL, c INTEGER, v REAL, PRIMARY KEY(a, b, c)) WITHOUT ROWID`,
		`CREATE TABLE after(x)`,
	} {
		if _, err := c.ExecContext(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	root, err := c.queryInt("SELECT rootpage FROM sqlite_schema WHERE name = 't'")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	bf, err := openBulk(path, map[string]uint32{"t": uint32(root)})
	if err != nil {
		t.Fatal(err)
	}
	tree := newBulkTree(bf.out, bf.f, bf.pageSize, bf.reserved, bf.pages+1, uint32(root), 3)
	rec := bf.record()
	for k := range n {
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
			t.Fatalf("row %d: %v", k, err)
		}
	}
	if err := bf.done("t", tree); err != nil {
		t.Fatal(err)
	}
	if err := bf.close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A laid-out b-tree is one SQLite reads, checks and keeps writing: for
// row counts around every page boundary of a one-, two- and three-level
// tree, integrity_check is ok, a full scan and an indexed range give the
// rows in order, and SQLite can then insert into it and into another
// table.
func TestBulkTreeReadsAsSQLiteWroteIt(t *testing.T) {
	counts := []int{0, 1, 2}
	for n := 10; n < 400; n += 7 {
		counts = append(counts, n)
	}
	counts = append(counts, 2000, 5003, 30_011)
	for _, n := range counts {
		path := bulkStore(t, 512, n)
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		check := func(when string, want int) {
			var ok string
			if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
				t.Fatalf("%d rows, %s: integrity_check %q (%v)", n, when, ok, err)
			}
			var got int
			if err := db.QueryRow("SELECT count(*) FROM t").Scan(&got); err != nil || got != want {
				t.Fatalf("%d rows, %s: count %d (%v)", n, when, got, err)
			}
		}
		check("laid out", n)
		rows, err := db.Query("SELECT a, b, c, v FROM t ORDER BY a, b, c")
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for ; rows.Next(); k++ {
			var a, c int64
			var b float64
			var v sql.NullFloat64
			if err := rows.Scan(&a, &b, &c, &v); err != nil {
				t.Fatal(err)
			}
			wa, wb, wc, wv := bulkRow(k)
			if a != wa || b != wb || c != wc || v.Valid != (wv != nil) || (v.Valid && v.Float64 != wv.(float64)) {
				t.Fatalf("%d rows: row %d is (%d %v %d %v), want (%d %v %d %v)", n, k, a, b, c, v, wa, wb, wc, wv)
			}
		}
		rows.Close()
		if k != n {
			t.Fatalf("%d rows: the scan read %d", n, k)
		}
		if n >= 2000 {
			var got int
			if err := db.QueryRow("SELECT count(*) FROM t WHERE a = 1 AND b BETWEEN 10 AND 20").Scan(&got); err != nil || got != 81 {
				t.Errorf("%d rows: range holds %d (%v), want 81", n, got, err)
			}
			var plan string
			if err := db.QueryRow("EXPLAIN QUERY PLAN SELECT v FROM t WHERE a = 1 AND b BETWEEN 10 AND 20").Scan(new(int), new(int), new(int), &plan); err != nil || !strings.Contains(plan, "PRIMARY KEY") {
				t.Errorf("plan %q (%v)", plan, err)
			}
		}
		if _, err := db.Exec("INSERT INTO t VALUES (-1, 0, 0, 1), (1, 0.01, 5, NULL), (1e6, 0, 0, 2); INSERT INTO after VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		check("after SQLite inserted", n+3)
		db.Close()
	}
}

// The Debian sqlite3 command, another SQLite build, agrees.
func TestBulkTreeOpensWithSQLite3(t *testing.T) {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("no sqlite3 command")
	}
	path := bulkStore(t, 4096, 100_000)
	out, err := exec.Command(bin, "-readonly", path, "PRAGMA integrity_check; SELECT count(*), sum(c = 0), count(v) FROM t").CombinedOutput()
	if err != nil {
		t.Fatal(err, string(out))
	}
	if got, want := strings.TrimSpace(string(out)), "ok\n100000|12500|85714"; got != want {
		t.Errorf("sqlite3: %q, want %q", got, want)
	}
}

// Rows out of key order or repeating a key are refused, as SQLite's
// uniqueness check refused them.
func TestBulkTreeRefusesDisorder(t *testing.T) {
	for name, keys := range map[string][][2]int64{
		"repeat": {{1, 1}, {1, 1}},
		"down":   {{1, 2}, {1, 1}},
	} {
		tree := newBulkTree(nil, nil, 4096, 0, 2, 1, 2)
		var err error
		for _, k := range keys {
			r := &record{}
			r.int(k[0])
			r.int(k[1])
			if err = tree.add(r); err != nil {
				break
			}
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// textRow is row k of the rowid test table r(id INTEGER PRIMARY KEY, s, n, x):
// texts from empty to several overflow pages long, NULLs, quotes and NULs.
func textRow(k int) (s string, n int64, x any) {
	s = strings.Repeat(fmt.Sprintf("%d'\x00é", k), []int{0, 1, 3, 50, 120, 600, 2500}[k%7])
	n = int64(k) * 1_000_003
	if k%5 != 0 {
		x = float64(k) / 3
	}
	return
}

// A laid-out rowid table reads as SQLite would have written it, rows that
// spill into overflow pages included, and SQLite can index it and insert
// into it afterwards.
func TestRowidTreeReadsAsSQLiteWroteIt(t *testing.T) {
	for _, c := range []struct{ pageSize, n int }{{512, 0}, {512, 1}, {512, 13}, {512, 3001}, {4096, 4000}} {
		path := filepath.Join(t.TempDir(), "r.sqlite")
		conn, err := openRaw(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{fmt.Sprintf("PRAGMA page_size=%d", c.pageSize),
			`CREATE TABLE r(id INTEGER PRIMARY KEY, s TEXT NOT NULL, n INTEGER NOT NULL, x REAL)`} {
			if _, err := conn.ExecContext(context.Background(), q, nil); err != nil {
				t.Fatal(err)
			}
		}
		root, err := conn.queryInt("SELECT rootpage FROM sqlite_schema WHERE name = 'r'")
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
		bf, err := openBulk(path, map[string]uint32{"r": uint32(root)})
		if err != nil {
			t.Fatal(err)
		}
		tree, err := bf.rowidTree("r")
		if err != nil {
			t.Fatal(err)
		}
		rec := bf.record()
		for k := range c.n {
			s, n, x := textRow(k)
			rec.reset()
			for _, v := range []any{nil, s, n, x} {
				if err := rec.value(v); err != nil {
					t.Fatal(err)
				}
			}
			if err := tree.add(int64(k*2), rec.bytes()); err != nil {
				t.Fatal(err)
			}
		}
		if err := bf.doneRowid("r", tree); err != nil {
			t.Fatal(err)
		}
		if err := bf.close(); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		var ok string
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
			t.Fatalf("%+v: integrity_check %q (%v)", c, ok, err)
		}
		rows, err := db.Query("SELECT id, s, n, x FROM r ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for ; rows.Next(); k++ {
			var id, n int64
			var s string
			var x sql.NullFloat64
			if err := rows.Scan(&id, &s, &n, &x); err != nil {
				t.Fatal(err)
			}
			ws, wn, wx := textRow(k)
			if id != int64(2*k) || s != ws || n != wn || x.Valid != (wx != nil) || (x.Valid && x.Float64 != wx.(float64)) {
				t.Fatalf("%+v: row %d is (%d %.20q %d %v)", c, k, id, s, n, x)
			}
		}
		rows.Close()
		if k != c.n {
			t.Fatalf("%+v: read %d rows", c, k)
		}
		if _, err := db.Exec("CREATE INDEX r_n ON r(n, s); INSERT INTO r(s, n) VALUES ('after', 1)"); err != nil {
			t.Fatal(err)
		}
		var got int
		if err := db.QueryRow("SELECT count(*) FROM r WHERE n > 0 AND n < 5000000").Scan(&got); err != nil || got != min(c.n, 5)+1-min(c.n, 1) {
			t.Errorf("%+v: %d rows in the range (%v)", c, got, err)
		}
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
			t.Fatalf("%+v: after SQLite wrote: integrity_check %q (%v)", c, ok, err)
		}
		db.Close()
	}
}

// discardAt is a file that keeps nothing, for counting a tree's own
// allocations.
type discardAt struct{}

func (discardAt) Write(p []byte) (int, error)            { return len(p), nil }
func (discardAt) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }

// A rowid table's rows cost no allocation each: the tree reuses its cell
// and its pages (a page split allocates an interior cell, ~1 in 20 rows of
// 200 bytes). A cell allocated per row was one allocation a row.
func TestRowidTreeAllocationsPerRow(t *testing.T) {
	tree := newRowidTree(discardAt{}, discardAt{}, 4096, 0, 2, 1)
	rec := []byte(strings.Repeat("x", 200))
	var rowid int64
	per := testing.AllocsPerRun(20_000, func() {
		if err := tree.add(rowid, rec); err != nil {
			t.Fatal(err)
		}
		rowid++
	})
	if per > 0.1 {
		t.Errorf("%.3f allocations per row", per)
	}
}
