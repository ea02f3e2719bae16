package sglang

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

// TestTRTLLMLinesIgnored: TRT-LLM iteration logs are outside the log metric
// scope; every line must decode to nothing, without error.
func TestTRTLLMLinesIgnored(t *testing.T) {
	in, err := os.ReadFile("testdata/trtllm_pr-6683_iter-log-elapsed-time.log")
	if err != nil {
		t.Fatal(err)
	}
	extra := "[TRT-LLM] iter = 12588, global_rank = 0, rank = 0, num_scheduled_requests = 18, kv_cache_util = 0.08, host_step_time = 29.9ms, prev_device_step_time = 28.6ms, timestamp = 2026-09-17 10:58:33\n" +
		"2026-09-17T10:58:33.230Z Engine ID map: request_id=22222222-2222-4222-8222-222222222222 trtllm_client_id=7 disagg_request_id=99\n"
	for i, line := range bytes.Split(append(in, extra...), []byte("\n")) {
		if obs, ok, err := (Generator{}).Decode(line); ok || err != nil {
			t.Errorf("line %d: decoded %+v, %v", i+1, obs, err)
		}
	}
}

// firstDiff describes the first line where got and want differ.
