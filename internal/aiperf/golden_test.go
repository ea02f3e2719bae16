package aiperf

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

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
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s; run go test -run TestGolden -update and review the diff\n%s", path, firstDiff(got, want))
			}
		})
	}
}

func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return "line " + itoa(i+1) + ":\n  got:  " + string(gl) + "\n  want: " + string(wl)
		}
	}
	return ""
}

func itoa(i int) string { return strconv.Itoa(i) }
