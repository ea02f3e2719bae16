package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"testing"
)

// The writer's connection binds by position what the driver binds: an
// empty string as empty text (not NULL), a nil as NULL, a bool as an integer, and
// strings with quotes and NUL bytes byte for byte.
func TestRawConnBindsAsTheDriver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.sqlite")
	c, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE t (a, b, c, d, e); BEGIN", nil); err != nil {
		t.Fatal(err)
	}
	st, err := c.PrepareContext(ctx, "INSERT INTO t VALUES (?,?,?,?,?)")
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{"", nil, true, int64(-7), 0.1},
		{"it's \x00 \u2066", "x", false, int64(1) << 62, -2.5e-300},
	}
	for _, r := range rows {
		args := make([]driver.NamedValue, len(r))
		for i, v := range r {
			args[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
		}
		if _, err := st.(driver.StmtExecContext).ExecContext(ctx, args); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "COMMIT", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q, err := db.Query("SELECT a, typeof(a), b, typeof(b), c, typeof(c), d, e FROM t ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	want := [][]any{
		{"", "text", nil, "null", int64(1), "integer", int64(-7), 0.1},
		{"it's \x00 \u2066", "text", "x", "text", int64(0), "integer", int64(1) << 62, -2.5e-300},
	}
	for k := 0; q.Next(); k++ {
		var a, ta, tb, tc string
		var b sql.NullString
		var cv, d int64
		var e float64
		if err := q.Scan(&a, &ta, &b, &tb, &cv, &tc, &d, &e); err != nil {
			t.Fatal(err)
		}
		var bv any
		if b.Valid {
			bv = b.String
		}
		got := []any{a, ta, bv, tb, cv, tc, d, e}
		for i := range got {
			if got[i] != want[k][i] {
				t.Errorf("row %d column %d: %#v, want %#v", k, i, got[i], want[k][i])
			}
		}
	}
	if err := q.Err(); err != nil {
		t.Fatal(err)
	}
}
