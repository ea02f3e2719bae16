package sqlstore

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

func TestDurationBucket(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want int
	}{{0, -29}, {1e-9, -29}, {0.001, -9}, {0.5, -1}, {1, 0}, {1.5, 1}, {3, 2}} {
		if got := DurationBucket(c.d); got != c.want {
			t.Errorf("DurationBucket(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

func smallDataset() *model.Dataset {
	first := int64(1_500_000_000)
	ttft := 500.0
	return &model.Dataset{
		Meta:    model.Meta{Job: "j", OriginNS: 1_000_000_000_000, DurationNS: 10_000_000_000, Phase: "profiling", Warnings: []string{"w"}},
		Audit:   model.Audit{"rows": 2},
		Sources: []model.Source{{ID: 0, Path: "logs/x.jsonl", Kind: "client", Bytes: 10, SHA256: "00"}},
		Requests: []model.Request{
			{ID: "a", Session: "s", Agent: "s", StartNS: 1_000_000_000, EndNS: 2_000_000_000, FirstNS: &first, TTFTms: &ttft, Status: model.StatusCompleted, Evidence: model.Ref{Source: 0, Line: 1}},
			{ID: "b", Session: "s", Agent: "s", StartNS: 3_000_000_000, EndNS: 4_000_000_000, Status: model.StatusError, Evidence: model.Ref{Source: 0, Line: 2}},
		},
		Profiles: []model.Profile{{ID: 0, File: "p.sqlite", Worker: "decode-0", EpochNS: 1_000_000_000_000, Names: []string{"n"},
			Ranges: []model.NVTXRange{{StartNS: 0, EndNS: 3_000_000, RowID: 7}, {StartNS: 1_000_000, EndNS: 1_000_100, RowID: 8}}}},
	}
}

func TestWriteSmallDataset(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.sqlite"), filepath.Join(dir, "b.sqlite")
	st, err := Write(a, smallDataset())
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows["requests"] != 2 || st.Rows["sessions"] != 1 || st.Rows["nvtx_ranges"] != 2 || st.Rows["nvtx_durations"] != 2 {
		t.Errorf("rows %v", st.Rows)
	}
	if _, err := Write(b, smallDataset()); err != nil {
		t.Fatal(err)
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Error("two writes of one dataset differ")
	}
	if _, err := Write(a, smallDataset()); err == nil {
		t.Error("Write replaced an existing file")
	}

	db, err := sql.Open("sqlite", "file:"+a+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != Version {
		t.Fatalf("user_version %d (%v)", version, err)
	}
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check %q (%v)", ok, err)
	}
	// Unknown stays NULL: request b has no TTFT and no first token.
	var ttft, first sql.NullFloat64
	if err := db.QueryRow(`SELECT ttft_ms, first_token FROM requests WHERE id = 'b'`).Scan(&ttft, &first); err != nil || ttft.Valid || first.Valid {
		t.Errorf("request b: ttft %v first %v (%v)", ttft, first, err)
	}
	var start, firstA float64
	if err := db.QueryRow(`SELECT start, first_token FROM requests WHERE id = 'a'`).Scan(&start, &firstA); err != nil || start != 1 || firstA != 1.5 {
		t.Errorf("request a: start %v first %v (%v)", start, firstA, err)
	}
	// NVTX times are the profile's session times measured from the origin.
	var nstart, nend float64
	if err := db.QueryRow(`SELECT start, "end" FROM nvtx_ranges WHERE source_row = 7`).Scan(&nstart, &nend); err != nil || nstart != 0 || nend != 0.003 {
		t.Errorf("range 7: %v..%v (%v)", nstart, nend, err)
	}
}

// A failed write leaves no file behind.
func TestFailedWriteRemovesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.sqlite")
	d := smallDataset()
	d.Metrics = []model.MetricSeries{{ID: 0, Name: "m"}} // no summary
	if _, err := Write(p, d); err == nil {
		t.Fatal("a series without its summary was written")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the failed store is still there (%v)", err)
	}
}
