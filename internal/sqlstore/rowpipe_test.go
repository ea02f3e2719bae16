package sqlstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/importer"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/tools/gen/synth"
)

// metricDataset imports a generated Tachometer capture of many series.
func metricDataset(t *testing.T) *model.Dataset {
	t.Helper()
	run := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(run, synth.Config{Seed: 4, Requests: 200, Sources: synth.SourceAIPerf | synth.SourceTachometer,
		Samples: 4 * pipeBatchRows * (pipeBatches + 2)}); err != nil {
		t.Fatal(err)
	}
	res, err := importer.Import(importer.Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	return res.Dataset
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
