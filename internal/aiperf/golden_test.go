package aiperf

import (
	"bytes"
	"encoding/json"
	"github.com/dsight/dsight/internal/golden"
	"os"
	"path/filepath"
	"testing"
)

// goldenCases map a golden file to its input and options.
var goldenCases = []struct {
	name  string // testdata/<name>.golden
	input string // testdata/<input>.jsonl
	phase string
}{
	{"legacy_run1", "legacy_run1", ""},
	{"legacy_derived", "legacy_derived", ""},
	{"current_docs", "current_docs", ""},
	{"agentic", "agentic", ""},
	{"phases", "phases", ""},
	{"phases_all", "phases", "all"},
	{"outcomes", "outcomes", ""},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tc.input+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(bytes.NewReader(in), Options{File: tc.input + ".jsonl", SourceID: 3, Phase: tc.phase})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", tc.name+".golden")
			golden.Check(t, path, got)
		})
	}
}
