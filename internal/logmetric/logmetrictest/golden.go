// Package logmetrictest holds the golden test every log metric generator
// runs over its fixtures, so the generators share one harness.
package logmetrictest

import (
	"bytes"
	"github.com/dsight/dsight/internal/golden"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
)

// Fixtures lists the log files under testdata (every file except README.md
// and the goldens).
func Fixtures(t testing.TB) []string {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == "README.md" || strings.HasSuffix(name, ".golden") {
			continue
		}
		out = append(out, filepath.Join("testdata", name))
	}
	if len(out) == 0 {
		t.Fatal("no fixtures")
	}
	return out
}

var workerName = regexp.MustCompile(`^(.+)_(prefill|decode|agg)_w(\d+)`)

// SourceFor derives the identity the importer would give a fixture; names
// outside the worker grammar are treated as an aggregated worker.
func SourceFor(path string) logmetric.SourceInfo {
	src := logmetric.SourceInfo{Path: filepath.ToSlash(path), SourceID: 7, Worker: "agg-0", Host: "fixture", Role: "agg"}
	if m := workerName.FindStringSubmatch(filepath.Base(path)); m != nil {
		src.Host, src.Role, src.Worker = m[1], m[2], m[2]+"-"+m[3]
	}
	return src
}

// Golden reads every fixture with gen in UTC and compares the dump with
// <fixture>.golden (rewritten under -update).
func Golden(t *testing.T, gen logmetric.Generator) {
	for _, path := range Fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := logmetric.Read(bytes.NewReader(in), SourceFor(path), time.UTC, gen)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := r.Dump(&got); err != nil {
				t.Fatal(err)
			}
			goldenPath := path + ".golden"
			golden.Check(t, goldenPath, got.Bytes())
		})
	}
	goldens, _ := filepath.Glob("testdata/*.golden")
	for _, g := range goldens {
		if _, err := os.Stat(strings.TrimSuffix(g, ".golden")); err != nil {
			t.Errorf("%s has no fixture", g)
		}
	}
}

// TestTRTLLMLinesIgnored: TRT-LLM iteration logs are outside the log metric
