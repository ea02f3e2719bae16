package report

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// stageEarly hands every summary of d to s as the import does, and returns
// a copy of d whose series keep the Blobs s gave back.
func stageEarly(t *testing.T, s *Stage, d *model.Dataset) *model.Dataset {
	t.Helper()
	out := *d
	out.Metrics = append([]model.MetricSeries(nil), d.Metrics...)
	for i := range out.Metrics {
		sum := *out.Metrics[i].Summary
		gz, err := sum.Payload.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		sum.Payload = s.StageSummary(sum.Payload, gz, sum.DecodedBytes)
		if got, err := sum.Payload.Bytes(); err != nil || string(got) != string(gz) || sum.Payload.Len() != len(gz) {
			t.Fatalf("series %d: the staged Blob reads other bytes (%v)", i, err)
		}
		out.Metrics[i].Summary = &sum
	}
	return &out
}

// A report whose summaries were staged during the import is the report
// Write makes, byte for byte, and their files exist before Write is
// called: they are created while the other series are summarized.
func TestEarlyStageMatchesWrite(t *testing.T) {
	d := manyMetrics(t, 120)
	want := filepath.Join(t.TempDir(), "report")
	if _, err := Write(d, assets(t), want, Options{}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "report")
	s, err := Begin(dir, d.Meta.SourceRoot)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	staged := stageEarly(t, s, d)
	for i := range staged.Metrics {
		e := staged.Metrics[i].Summary.Payload.(*earlySummary)
		<-e.done
		for _, f := range e.entries {
			if _, err := os.Stat(filepath.Join(s.files.dir, filepath.FromSlash(f.Path))); err != nil {
				t.Fatalf("series %d: %v before Write", i, err)
			}
		}
	}
	if _, err := s.Write(staged, assets(t), Options{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got, w := tree(t, dir), tree(t, want); !reflect.DeepEqual(got, w) {
		t.Fatalf("the early-staged report differs from Write's (%d files against %d)", len(got), len(w))
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".report.dsight-stage-*")); len(leftovers) != 0 {
		t.Fatalf("staging left behind: %v", leftovers)
	}
}

// A summary whose file cannot be created fails the write naming the first
// such series, and the previous report stays.
func TestEarlyStageWriteErrorNamesTheSeries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(withMetrics(t, dataset("first")), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	d := manyMetrics(t, 40)
	s, err := Begin(dir, d.Meta.SourceRoot)
	if err != nil {
		t.Fatal(err)
	}
	// A file where the detail directory belongs: no script can be created.
	if err := os.WriteFile(filepath.Join(s.files.dir, DetailDir), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	staged := stageEarly(t, s, d)
	_, err = s.Write(staged, assets(t), Options{})
	s.Close()
	if err == nil || !strings.Contains(err.Error(), "metric series 0 (m0): stage report:") {
		t.Fatalf("error %v, want one naming series 0", err)
	}
	previousReportKept(t, dir, before)
}

// A stage closed without a write (the import failed) leaves nothing.
func TestEarlyStageClosedUnwritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	d := manyMetrics(t, 10)
	s, err := Begin(dir, d.Meta.SourceRoot)
	if err != nil {
		t.Fatal(err)
	}
	stageEarly(t, s, d)
	s.Close()
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil || len(entries) != 0 {
		t.Fatalf("left behind: %v (%v)", entries, err)
	}
}
