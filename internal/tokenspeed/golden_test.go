package tokenspeed

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

// fixtures lists the log files under testdata (every file except README.md
// and the goldens).
func fixtures(t testing.TB) []string {
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

// sourceFor derives the identity the importer would give a fixture; names
// outside the worker grammar are treated as an aggregated worker.
func sourceFor(path string) logmetric.SourceInfo {
	src := logmetric.SourceInfo{Path: filepath.ToSlash(path), SourceID: 7, Worker: "agg-0", Host: "fixture", Role: "agg"}
	if m := workerName.FindStringSubmatch(filepath.Base(path)); m != nil {
		src.Host, src.Role, src.Worker = m[1], m[2], m[2]+"-"+m[3]
	}
	return src
}

func TestGolden(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := logmetric.Read(bytes.NewReader(in), sourceFor(path), time.UTC, Generator{})
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

// TestOtherEnginesIgnored: SGLang and TRT-LLM logs hold nothing for this
// generator; every line must decode to nothing, without error.
func TestOtherEnginesIgnored(t *testing.T) {
	for _, path := range fixtures(t) {
		base := filepath.Base(path)
		if !strings.HasPrefix(base, "sglang_") && !strings.HasPrefix(base, "trtllm_") {
			continue
		}
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(in, []byte("\n")) {
			if obs, ok, err := (Generator{}).Decode(line); ok || err != nil {
				t.Errorf("%s:%d: decoded %+v, %v", path, i+1, obs, err)
			}
		}
	}
}

// firstDiff describes the first line where got and want differ.
