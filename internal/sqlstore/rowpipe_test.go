package sqlstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/tools/gen/synth"
)

// metricDataset imports a generated Tachometer capture of many series.
func metricDataset(t *testing.T) *model.Dataset {
	t.Helper()
	return generatedDataset(t, synth.Config{Seed: 4, Requests: 200, Sources: synth.SourceAIPerf | synth.SourceTachometer,
		Samples: 4 * pipeBatchRows * (pipeBatches + 2)})
}

// The metric points are encoded on one goroutine and laid out on another.
// A series that cannot be read, after more batches than circulate, fails
// the write with the series named and no file left; a good capture gives
// as many rows as its series hold.
func TestMetricRowsHandOverStopsOnABadSeries(t *testing.T) {
	d := metricDataset(t)
	path := filepath.Join(t.TempDir(), "s.sqlite")
	st, err := Write(path, d)
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, m := range d.Metrics {
		want += m.Rows
	}
	if st.Rows["metric_points"] != want || want < pipeBatchRows*(pipeBatches+2) {
		t.Fatalf("metric_points holds %d rows, the series %d (want more than %d)", st.Rows["metric_points"], want, pipeBatchRows*(pipeBatches+2))
	}
	// The series, encoded on several goroutines, are laid out in id order,
	// each whole: a table scan reads them back in key order, SQLite's
	// check finds the pages sound, and each series holds its rows.
	db := openStore(t, path)
	got := map[int64]int64{}
	prev := int64(-1)
	rs, err := db.Query(`SELECT series FROM metric_points`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var id int64
		if err := rs.Scan(&id); err != nil {
			t.Fatal(err)
		}
		if id < prev {
			t.Fatalf("series %d after series %d in the table's order", id, prev)
		}
		prev = id
		got[id]++
	}
	rs.Close()
	for _, m := range d.Metrics {
		if got[int64(m.ID)] != m.Rows {
			t.Errorf("series %d: %d rows, want %d", m.ID, got[int64(m.ID)], m.Rows)
		}
	}
	// The series with the highest id is written last.
	last := 0
	for i := range d.Metrics {
		if d.Metrics[i].ID > d.Metrics[last].ID {
			last = i
		}
	}
	bad := &d.Metrics[last]
	bad.Summary = &model.MetricSummary{Payload: model.InMemory("not a summary"), MetricBounds: bad.Summary.MetricBounds}
	path = filepath.Join(t.TempDir(), "bad.sqlite")
	_, err = Write(path, d)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("metric series %d (%s): ", bad.ID, bad.Name)) {
		t.Fatalf("the write's error is %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the failed write left %s (%v)", path, err)
	}
}

// Two series sharing an id would interleave their keys: the write
// refuses them, naming both.
func TestMetricSeriesSharingAnIdAreRefused(t *testing.T) {
	d := metricDataset(t)
	d.Metrics[1].ID = d.Metrics[0].ID
	_, err := Write(filepath.Join(t.TempDir(), "s.sqlite"), d)
	if err == nil || !strings.Contains(err.Error(), "share their id") {
		t.Fatalf("the write's error is %v", err)
	}
}
