package report

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A report written into a stage opened before its dataset existed is the
// report Write makes, byte for byte.
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
	if _, err := s.Write(d, assets(t), Options{}); err != nil {
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

// A pack that cannot be created fails the write naming the series it
// holds, and the previous report stays.
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
	_, err = s.Write(d, assets(t), Options{})
	s.Close()
	// Series 0 to 4 share the first pack.
	if err == nil || !strings.Contains(err.Error(), "metric series 0 (m0) and the 4 after it in its pack: stage report:") {
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
	s.Close()
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil || len(entries) != 0 {
		t.Fatalf("left behind: %v (%v)", entries, err)
	}
}
