package dynamolog

import (
	"bytes"
	"encoding/json"
	"github.com/dsight/dsight/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenInputs lists the log inputs in testdata.
func goldenInputs(t testing.TB) []string {
	var inputs []string
	for _, pattern := range []string{"testdata/*.out", "testdata/*.log", "testdata/*.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, m...)
	}
	if len(inputs) == 0 {
		t.Fatal("no inputs in testdata")
	}
	return inputs
}

// TestGolden scans every testdata input as a frontend log and as a worker
// log and compares both results with <case>.golden.
func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, input := range goldenInputs(t) {
		goldenPath := strings.TrimSuffix(input, filepath.Ext(input)) + ".golden"
		if seen[goldenPath] {
			t.Fatalf("two inputs share %s", goldenPath)
		}
		seen[goldenPath] = true
		t.Run(filepath.Base(input), func(t *testing.T) {
			got := scanForGolden(t, filepath.ToSlash(input))
			golden.Check(t, goldenPath, got)
		})
	}
	goldens, _ := filepath.Glob("testdata/*.golden")
	for _, g := range goldens {
		if !seen[g] {
			t.Errorf("%s has no input", g)
		}
	}
}

type goldenResult struct {
	Frontend      *FrontendLog `json:"frontend"`
	FrontendError string       `json:"frontend_error,omitempty"`
	Worker        *WorkerLog   `json:"worker"`
	WorkerError   string       `json:"worker_error,omitempty"`
}

func scanForGolden(t *testing.T, input string) []byte {
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	var view goldenResult
	view.Frontend, err = ScanFrontend(bytes.NewReader(data), input)
	if err != nil {
		view.FrontendError = err.Error()
	}
	view.Worker, err = ScanWorker(bytes.NewReader(data), input)
	if err != nil {
		view.WorkerError = err.Error()
	}
	out, err := json.MarshalIndent(view, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
