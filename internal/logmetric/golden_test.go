package logmetric

import (
	"bytes"
	"github.com/dsight/dsight/internal/golden"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestGolden reads every testdata/*.log with the fake generator, in UTC, and
// compares the dump with its .goldenPath sibling.
func TestGolden(t *testing.T) {
	logs, err := filepath.Glob("testdata/*.log")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range logs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			src := SourceInfo{Path: path, SourceID: 1, Worker: "decode-0", Host: "host", Role: "decode"}
			r, err := Read(bytes.NewReader(in), src, time.UTC, newFake())
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := r.Dump(&got); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, path[:len(path)-len(filepath.Ext(path))]+".golden", got.Bytes())
		})
	}
	goldens, _ := filepath.Glob("testdata/*.golden")
	for _, g := range goldens {
		if _, err := os.Stat(g[:len(g)-len(".golden")] + ".log"); err != nil {
			t.Errorf("%s has no fixture", g)
		}
	}
}

func compareGolden(t *testing.T, goldenPath string, got []byte) {
	t.Helper()
	golden.Check(t, goldenPath, got)
}

// firstDiff describes the first line where got and want differ.
