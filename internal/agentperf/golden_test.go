package agentperf

import (
	"bytes"
	"encoding/json"
	"github.com/dsight/dsight/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var goldenCases = []struct {
	name  string // testdata/<name>.golden
	dir   string // testdata/<dir>/requests.jsonl and its companions
	phase string
}{
	{"joined", "joined", ""},
	{"joined_all", "joined", "all"},
	{"liveness", "liveness", ""},
	{"no_output", "no_output", ""},
	{"cache", "cache", ""},
}

// loadInputs discovers a case's files as the importer would; sources are
// numbered requests 0, manifest 1, analyses from 2.
func loadInputs(t testing.TB, dir string) Inputs {
	export := filepath.Join("testdata", dir, "requests.jsonl")
	manifest, analyses, err := Companions(export)
	if err != nil {
		t.Fatal(err)
	}
	open := func(path string, id int) Input {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return Input{Path: filepath.Base(path), SourceID: id, Reader: bytes.NewReader(data)}
	}
	in := Inputs{Requests: open(export, 0)}
	if manifest != "" {
		m := open(manifest, 1)
		in.Manifest = &m
	}
	for i, path := range analyses {
		phase, _ := AnalysisPhase(filepath.Base(path))
		in.Analyses = append(in.Analyses, Analysis{Input: open(path, 2+i), Phase: phase})
	}
	return in
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(loadInputs(t, tc.dir), Options{Phase: tc.phase})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			if strings.Contains(string(got), "MUST_NOT_BE_EMBEDDED") {
				t.Fatal("prompt or response text reached the normalized requests")
			}
			path := filepath.Join("testdata", tc.name+".golden")
			golden.Check(t, path, got)
		})
	}
}
