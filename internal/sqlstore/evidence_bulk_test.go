package sqlstore

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/tools/gen/synth"
)

// tracedDataset imports a generated traced run whose evidence the build
// streams, with spans no request owns and duplicated OTel exports.
func tracedDataset(t *testing.T) *model.Dataset {
	t.Helper()
	return tracedDatasetTapped(t, nil)
}

// tracedDatasetTapped is tracedDataset, its evidence handed to tap (nil
// for none) as the join encodes it.
func tracedDatasetTapped(t *testing.T, tap importer.EvidenceTap) *model.Dataset {
	t.Helper()
	d := generatedDatasetTapped(t, synth.Config{
		Seed: 11, Requests: 300, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers,
		OTelUntraced: 0.1, OTelDuplicate: true, ClockOddities: true,
	}, tap)
	if d.StreamedEvidence == nil {
		t.Fatal("the import did not stream its evidence")
	}
	// Spans no request owns (request NULL): their index keys are NULL,
	// and the last one added starts before every joined span.
	for i, start := range []int64{d.Meta.OriginNS + 2_000_000_000, d.Meta.OriginNS} {
		d.ServerSpans = append(d.ServerSpans, model.JoinedSpan{Span: &model.Span{TraceID: "t", SpanID: fmt.Sprint("s", i), Name: "stray",
			StartNS: start, EndNS: start + 1000, Ref: model.SpanRef{Path: "logs/stray.jsonl", Line: int64(i + 1)}}})
	}
	return d
}

// generatedDataset imports a run generated as c says.
func generatedDataset(t *testing.T, c synth.Config) *model.Dataset {
	t.Helper()
	return generatedDatasetTapped(t, c, nil)
}

// generatedDatasetTapped imports a run generated as c says, handing its
// evidence to tap (nil for none) as the join encodes it.
func generatedDatasetTapped(t *testing.T, c synth.Config, tap importer.EvidenceTap) *model.Dataset {
	t.Helper()
	run := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(run, c); err != nil {
		t.Fatal(err)
	}
	res, err := importer.Import(importer.Options{Run: run, EvidenceTap: tap})
	if err != nil {
		t.Fatal(err)
	}
	return res.Dataset
}

func openStore(t *testing.T, p string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+p+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("%s: integrity_check %q (%v)", filepath.Base(p), ok, err)
	}
	return db
}

// rows renders a query's rows, each value with its storage class.
func rows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%#v", vals))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The evidence tables and indexes the bulk pass lays out read exactly as
// the ones SQLite writes itself from the same evidence, and SQLite's own
// check finds every index entry for every row.
func TestEvidenceTablesReadAsSQLiteWroteThem(t *testing.T) {
	d := tracedDataset(t)
	dir := t.TempDir()
	bulk, viaSQLite := filepath.Join(dir, "bulk.sqlite"), filepath.Join(dir, "sqlite.sqlite")
	st, err := Write(bulk, d)
	if err != nil {
		t.Fatal(err)
	}
	forceSQLiteEvidence = true
	_, err = Write(viaSQLite, d)
	forceSQLiteEvidence = false
	if err != nil {
		t.Fatal(err)
	}
	a, b := openStore(t, bulk), openStore(t, viaSQLite)
	for _, q := range []string{
		`SELECT * FROM lifecycle_stages`,
		`SELECT * FROM worker_bindings`,
		`SELECT * FROM server_spans`,
		`SELECT request, ordinal FROM server_spans INDEXED BY server_spans_request WHERE request IS NULL OR request >= 0`,
		`SELECT start, ordinal FROM server_spans INDEXED BY server_spans_window WHERE start > -1e300`,
		`SELECT worker, request, ordinal FROM worker_bindings INDEXED BY worker_bindings_worker WHERE worker >= ''`,
		`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid`,
	} {
		ra, rb := rows(t, a, q), rows(t, b, q)
		if len(ra) == 0 && !strings.Contains(q, "sqlite_schema") {
			t.Errorf("%s: no rows", q)
		}
		if !reflect.DeepEqual(ra, rb) {
			t.Errorf("%s: %d rows laid out, %d through SQLite, or different values", q, len(ra), len(rb))
		}
	}
	var nulls int
	if err := a.QueryRow(`SELECT count(*) FROM server_spans WHERE request IS NULL`).Scan(&nulls); err != nil || nulls == 0 {
		t.Errorf("no span without a request (%d, %v): the NULL keys go untested", nulls, err)
	}
	if st.Rows["lifecycle_stages"] == 0 || st.Rows["worker_bindings"] == 0 || st.Rows["server_spans"] == 0 {
		t.Errorf("rows %v", st.Rows)
	}
}

// A binding too large for an index page leaves worker_bindings to SQLite,
// which spills it into overflow pages; the row reads back whole.
func TestOversizedBindingGoesThroughSQLite(t *testing.T) {
	d := smallDataset()
	host := strings.Repeat("h", 3000)
	d.Evidence = []model.RequestEvidence{{
		Bindings: []model.WorkerBinding{{Worker: "decode-0", Host: host, Role: "decode", Ref: model.LineRef{Path: "logs/x.jsonl", Line: 3}},
			{Worker: "decode-1", Host: "n2", Role: "decode", Ref: model.LineRef{Path: "logs/w.out", Line: 4}}},
	}}
	d.Requests[1].Server = &model.RequestServer{Evidence: 0}
	p := filepath.Join(t.TempDir(), "s.sqlite")
	st, err := Write(p, d)
	if err != nil {
		t.Fatal(err)
	}
	db := openStore(t, p)
	got := rows(t, db, `SELECT request, ordinal, worker, length(host), source, path, line FROM worker_bindings INDEXED BY worker_bindings_worker WHERE worker >= ''`)
	want := []string{`[]interface {}{1, 0, "decode-0", 3000, 0, interface {}(nil), 3}`, `[]interface {}{1, 1, "decode-1", 2, interface {}(nil), "logs/w.out", 4}`}
	if !reflect.DeepEqual(got, want) || st.Rows["worker_bindings"] != 2 {
		t.Errorf("bindings %v (rows %v)", got, st.Rows)
	}
}

// compareKeys orders as SQLite does: NULL, numbers, then text bytewise.
func TestCompareKeysOrdersNullNumbersText(t *testing.T) {
	vals := []func(r *record){
		func(r *record) { r.null() },
		func(r *record) { r.real(-2.5) },
		func(r *record) { r.int(-2) },
		func(r *record) { r.real(0.5) },
		func(r *record) { r.int(1) },
		func(r *record) { r.text("") },
		func(r *record) { r.text("A") },
		func(r *record) { r.text("a") },
		func(r *record) { r.text("ab") },
	}
	for i := range vals {
		for j := range vals {
			var a, b record
			vals[i](&a)
			vals[j](&b)
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := compareKeys(&a, &b, 1); got != want {
				t.Errorf("compareKeys(%d, %d) = %d, want %d", i, j, got, want)
			}
		}
	}
}
