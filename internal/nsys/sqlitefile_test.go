package nsys

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/nsys/nsystest"
)

// agree reads path through the file-format reader and through the driver
// alone and requires the same profile (or the same error); it returns
// whether the file-format reader read NVTX_EVENTS.
func agree(t *testing.T, path string) bool {
	t.Helper()
	name := "h_decode_w0_profile_gpu0-1.sqlite"
	fast, used, ferr := readProfile(path, name, Options{MaxEvents: 1000}, true)
	slow, _, serr := readProfile(path, name, Options{MaxEvents: 1000}, false)
	if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
		t.Fatalf("file reader error %v, driver error %v", ferr, serr)
	}
	if !reflect.DeepEqual(fast, slow) {
		a, _ := json.Marshal(fast)
		b, _ := json.Marshal(slow)
		t.Fatalf("the file reader and the driver disagree:\nfile   %s\ndriver %s", a, b)
	}
	return used
}

// exec builds a database at path with the given statements.
func exec(t *testing.T, path string, dsn string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// preamble is the smallest export Read accepts before its NVTX table.
var preamble = []string{
	`CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT, systemClockNs INTEGER)`,
	`INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1790000000000000000, '', '', 0)`,
	`CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER NOT NULL, duration INTEGER NOT NULL, startTime INTEGER NOT NULL, stopTime INTEGER NOT NULL)`,
	`INSERT INTO ANALYSIS_DETAILS VALUES (0, 1000000, 0, 1000000)`,
	`CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)`,
	`INSERT INTO StringIds VALUES (1, 'scheduler.run_batch'), (2, 'aten::mm'), (3, 'graph_replay')`,
}

const nvtxDDL = `CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)`

// Generated exports of every size and shape agree, and the file reader is
// the one that reads them.
func TestFileReaderAgreesOnGeneratedExports(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"scheduler.run_batch", "aten::mm", "preprocess.tokenize", "graph_replay", "forward_step decode",
		strings.Repeat("scheduler.long_", 400), // overflows a page
		"forward_step " + strings.Repeat("é", 3000)}
	for _, n := range []int{0, 1, 10, 500, 20_000} {
		for _, inline := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d-%v", n, inline), func(t *testing.T) {
				e := base()
				e.Ranges = e.Ranges[:0]
				for k := range n {
					s := 1_000_000_000 + rng.Int64N(2_000_000_000)
					r := nsystest.Range{Start: s, Name: names[rng.IntN(len(names))], Inline: inline || k%7 == 0, GlobalTID: rng.Int64()}
					switch rng.IntN(10) {
					case 0: // a mark
					case 1:
						r.End, r.Null = nsystest.End(s+rng.Int64N(1000)), true
					case 2:
						r.End = nsystest.End(s - 1) // inverted
					default:
						r.End = nsystest.End(s + rng.Int64N(5_000_000))
					}
					e.Ranges = append(e.Ranges, r)
				}
				path := write(t, "front_frontend_0.sqlite", e)
				if !agree(t, path) {
					t.Fatal("the file reader declined a generated export")
				}
			})
		}
	}
}

// Hand-made tables: page sizes, deleted rows, explicit and negative
// rowids, rows older than an added column, auto-vacuum pointer maps — read
// by the file reader; and the layouts and values it leaves to the driver.
func TestFileReaderAgreesOnHandMadeFiles(t *testing.T) {
	rows := func(n int, vals func(k int) string) string {
		var b strings.Builder
		b.WriteString(`INSERT INTO NVTX_EVENTS (rowid, start, end, eventType, text, globalTid, textId) VALUES `)
		for k := range n {
			if k > 0 {
				b.WriteString(",")
			}
			b.WriteString(vals(k))
		}
		return b.String()
	}
	plain := func(k int) string {
		return fmt.Sprintf("(%d, %d, %d, 59, NULL, %d, %d)", k+1, 1000+k, 2000+k, k%5, 1+k%3)
	}
	cases := []struct {
		name  string
		dsn   string
		stmts []string
		file  bool // read by the file reader
	}{
		{"page size 512", "?_pragma=page_size(512)", []string{nvtxDDL, rows(3000, plain)}, true},
		{"page size 65536", "?_pragma=page_size(65536)", []string{nvtxDDL, rows(3000, plain)}, true},
		{"deleted rows and free pages", "", []string{nvtxDDL, rows(5000, plain), `DELETE FROM NVTX_EVENTS WHERE rowid % 3 = 0 OR rowid BETWEEN 1000 AND 3000`}, true},
		{"vacuumed", "", []string{nvtxDDL, rows(5000, plain), `DELETE FROM NVTX_EVENTS WHERE rowid % 2 = 0`, `VACUUM`}, true},
		{"auto-vacuum", "?_pragma=auto_vacuum(1)", []string{nvtxDDL, rows(5000, plain), `DELETE FROM NVTX_EVENTS WHERE rowid > 2500`}, true},
		{"rowids out of order and negative", "", []string{nvtxDDL, rows(2000, func(k int) string {
			return fmt.Sprintf("(%d, %d, %d, 59, 'scheduler.x%d', NULL, NULL)", (k*7919)%2003-1000, 5000-k, 6000, k%4)
		})}, true},
		{"rowids too sparse to size by", "", []string{nvtxDDL, rows(300, func(k int) string {
			return fmt.Sprintf("(%d, %d, %d, 59, 'scheduler.s', NULL, NULL)", int64(k)*1_000_000_007, 1000+k, 2000+k)
		})}, true},
		{"ints of every width", "", []string{nvtxDDL, rows(8, func(k int) string {
			v := []int64{0, 1, 127, -128, 32767, 1 << 23, -(1 << 31), 1 << 40}[k]
			return fmt.Sprintf("(%d, %d, %d, 59, 'scheduler.w', %d, NULL)", k+1, 1000, 900000, v)
		}), `INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES (1, 2, 59, 'graph_replay', -9223372036854775808), (1, 2, 59, 'graph_replay', 9223372036854775807)`}, true},
		{"a column added later", "", []string{
			`CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT)`,
			`INSERT INTO NVTX_EVENTS VALUES (10, 20, 59, 'scheduler.old'), (11, NULL, 34, NULL)`,
			`ALTER TABLE NVTX_EVENTS ADD COLUMN globalTid INTEGER`,
			`ALTER TABLE NVTX_EVENTS ADD COLUMN textId INTEGER`,
			`INSERT INTO NVTX_EVENTS VALUES (12, 30, 59, NULL, 77, 1)`}, true},
		{"no text, textId or globalTid column", "", []string{`CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER)`, `INSERT INTO NVTX_EVENTS VALUES (1, 2), (3, NULL)`}, true},
		{"blob names", "", []string{nvtxDDL, `INSERT INTO NVTX_EVENTS (start, end, eventType, text) VALUES (1, 2, 59, X'7363686564756c65722e78'), (1, 2, 59, X'00ff')`}, true},
		// Left to the driver:
		{"a column added later with a default", "", []string{
			`CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, text TEXT)`,
			`INSERT INTO NVTX_EVENTS VALUES (10, 20, 'scheduler.old')`,
			`ALTER TABLE NVTX_EVENTS ADD COLUMN globalTid INTEGER DEFAULT 5`}, false},
		{"empty names", "", []string{nvtxDDL, `INSERT INTO NVTX_EVENTS (start, end, eventType, text, textId) VALUES (1, 2, 59, '', 1), (1, 2, 59, 'scheduler.a', NULL), (1, 2, 59, '', 1)`}, false},
		{"a number stored as a name", "", []string{nvtxDDL, `INSERT INTO NVTX_EVENTS (start, end, eventType, text) VALUES (1, 2, 59, 'graph_replay'), (1, 2, 59, 12)`}, true},
		{"a number as a name", "", []string{`CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, text)`, `INSERT INTO NVTX_EVENTS VALUES (1, 2, 'graph_replay'), (1, 2, 12), (1, 2, 1.5)`}, false},
		{"a real start", "", []string{`CREATE TABLE NVTX_EVENTS (start, end INTEGER)`, `INSERT INTO NVTX_EVENTS VALUES (2.0, 3), (1.5, 3)`}, false},
		{"text in an id column", "", []string{nvtxDDL, `INSERT INTO NVTX_EVENTS (start, end, eventType, textId) VALUES (1, 2, 59, 'x1')`}, false},
		{"a NULL start", "", []string{`CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER)`, `INSERT INTO NVTX_EVENTS VALUES (NULL, 3)`}, false},
		{"REAL affinity", "", []string{`CREATE TABLE NVTX_EVENTS (start REAL, end INTEGER)`, `INSERT INTO NVTX_EVENTS VALUES (1, 3)`}, false},
		{"the rowid as a column", "", []string{`CREATE TABLE NVTX_EVENTS (start INTEGER PRIMARY KEY, end INTEGER)`, `INSERT INTO NVTX_EVENTS VALUES (1, 3), (2, 4)`}, false},
		{"WITHOUT ROWID", "", []string{`CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, text TEXT, PRIMARY KEY (start, end)) WITHOUT ROWID`, `INSERT INTO NVTX_EVENTS VALUES (1, 3, 'graph_replay')`}, false},
		{"a generated column", "", []string{`CREATE TABLE NVTX_EVENTS (a INTEGER, start INTEGER GENERATED ALWAYS AS (a + 1) VIRTUAL, end INTEGER)`, `INSERT INTO NVTX_EVENTS (a, end) VALUES (1, 3)`}, false},
		{"a view", "", []string{`CREATE TABLE n (start INTEGER, end INTEGER)`, `INSERT INTO n VALUES (1, 3)`, `CREATE VIEW NVTX_EVENTS AS SELECT * FROM n`}, false},
		{"UTF-16", "?_pragma=encoding('UTF-16le')", []string{nvtxDDL, `INSERT INTO NVTX_EVENTS (start, end, eventType, text) VALUES (1, 2, 59, 'graph_replay')`}, false},
		{"WAL", "?_pragma=journal_mode(wal)", []string{nvtxDDL, `INSERT INTO NVTX_EVENTS (start, end, eventType, text) VALUES (1, 2, 59, 'graph_replay')`}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in.sqlite")
			exec(t, path, c.dsn, append(append([]string{}, preamble...), c.stmts...)...)
			if used := agree(t, path); used != c.file {
				t.Errorf("file reader used: %v, want %v", used, c.file)
			}
		})
	}
}

// nvtxRoot builds a many-row export and returns it with the root page of
// NVTX_EVENTS and the page size.
func nvtxRoot(t *testing.T, pageSize int, rows int, longNames bool) (string, uint32, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.sqlite")
	var b strings.Builder
	b.WriteString(`INSERT INTO NVTX_EVENTS (start, end, eventType, text) VALUES `)
	for k := range rows {
		if k > 0 {
			b.WriteString(",")
		}
		name := "scheduler.x"
		if longNames {
			name = strings.Repeat("scheduler.", 300)
		}
		fmt.Fprintf(&b, "(%d, %d, 59, '%s')", k, k+1, name)
	}
	exec(t, path, fmt.Sprintf("?_pragma=page_size(%d)", pageSize), append(append([]string{}, preamble...), nvtxDDL, b.String())...)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var root uint32
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name = 'NVTX_EVENTS'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	return path, root, pageSize
}

func scanFile(path string, root uint32) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	s, err := openSQLiteFile(bytesReaderAt(data), int64(len(data)))
	if err != nil {
		return 0, err
	}
	n := 0
	err = s.scanTable(root, func(int64, []byte) error { n++; return nil })
	return n, err
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, errors.New("offset outside the file")
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, errors.New("short read")
	}
	return n, nil
}

func patch(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// Cycles in child and overflow pointers, pointers past the end and a
// truncated file end the scan with an error; Read then reports what the
// driver says, or the profile it reads.
func TestFileReaderHostile(t *testing.T) {
	u32 := func(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
	t.Run("interior page pointing at itself", func(t *testing.T) {
		path, root, ps := nvtxRoot(t, 512, 3000, false)
		off := int64(root-1) * int64(ps)
		patch(t, path, off+8, u32(root)) // right-most child: the page itself
		if _, err := scanFile(path, root); !errors.Is(err, errSQLiteFile) || !strings.Contains(err.Error(), "twice") {
			t.Fatalf("err %v, want a page reached twice", err)
		}
		agree(t, path)
	})
	t.Run("child past the end", func(t *testing.T) {
		path, root, ps := nvtxRoot(t, 512, 3000, false)
		patch(t, path, int64(root-1)*int64(ps)+8, u32(1<<30))
		if _, err := scanFile(path, root); !errors.Is(err, errSQLiteFile) {
			t.Fatalf("err %v", err)
		}
		agree(t, path)
	})
	t.Run("overflow chain in a cycle", func(t *testing.T) {
		path, root, _ := nvtxRoot(t, 512, 20, true)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Every overflow page but the last of a chain points at the next;
		// point each at itself.
		s, err := openSQLiteFile(bytesReaderAt(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var firsts []uint32
		err = s.scanTable(root, func(int64, []byte) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		for pg := uint32(2); pg <= s.pages; pg++ {
			off := int64(pg-1) * 512
			if next := binary.BigEndian.Uint32(data[off:]); next == pg+1 {
				firsts = append(firsts, pg)
			}
		}
		if len(firsts) == 0 {
			t.Fatal("no overflow chain found")
		}
		for _, pg := range firsts {
			patch(t, path, int64(pg-1)*512, u32(pg))
		}
		if _, err := scanFile(path, root); !errors.Is(err, errSQLiteFile) {
			t.Fatalf("err %v", err)
		}
		agree(t, path)
	})
	t.Run("truncated", func(t *testing.T) {
		path, root, _ := nvtxRoot(t, 512, 3000, false)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 50, 100, 512, len(data) / 2, len(data) - 512, len(data) - 1} {
			if _, err := scanFile(writeBytes(t, data[:n]), root); err == nil && n < len(data)-512 {
				t.Errorf("a file cut to %d of %d bytes scanned without an error", n, len(data))
			}
			p := writeBytes(t, data[:n])
			_, _, ferr := readProfile(p, "x.sqlite", Options{}, true)
			_, _, serr := readProfile(p, "x.sqlite", Options{}, false)
			if (ferr == nil) != (serr == nil) {
				t.Errorf("cut to %d: file reader error %v, driver error %v", n, ferr, serr)
			}
		}
	})
	t.Run("deeper than SQLite allows", func(t *testing.T) {
		// A chain of interior pages, each with no cells and its right-most
		// child the next page: 30 levels.
		const ps = 512
		data := make([]byte, 32*ps)
		copy(data, "SQLite format 3\x00")
		binary.BigEndian.PutUint16(data[16:], ps)
		data[18], data[19], data[21], data[22], data[23] = 1, 1, 64, 32, 32
		binary.BigEndian.PutUint32(data[56:], 1)
		for pg := uint32(2); pg <= 31; pg++ {
			off := int(pg-1) * ps
			data[off] = 0x05
			binary.BigEndian.PutUint32(data[off+8:], pg+1)
		}
		data[31*ps] = 0x0D
		s, err := openSQLiteFile(bytesReaderAt(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.scanTable(2, func(int64, []byte) error { return nil }); !errors.Is(err, errSQLiteFile) || !strings.Contains(err.Error(), "deeper") {
			t.Fatalf("err %v", err)
		}
	})
}

func writeBytes(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.sqlite")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<56 - 1, 1 << 56, 1<<63 + 12345, ^uint64(0)} {
		b := putVarint(v)
		got, n := varint(b)
		if got != v || n != len(b) {
			t.Errorf("varint(%x) = %d, %d; want %d, %d", b, got, n, v, len(b))
		}
		if _, n := varint(b[:len(b)-1]); n != 0 {
			t.Errorf("varint of %d cut short read %d bytes", v, n)
		}
	}
}

// putVarint is SQLite's varint encoding, for the test.
func putVarint(v uint64) []byte {
	if v > 1<<56-1 {
		var b [9]byte
		b[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			b[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return b[:]
	}
	var b []byte
	for {
		b = append([]byte{byte(v&0x7f) | 0x80}, b...)
		v >>= 7
		if v == 0 {
			break
		}
	}
	b[len(b)-1] &^= 0x80
	return b
}
