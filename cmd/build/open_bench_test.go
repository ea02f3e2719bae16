package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
)

// BenchmarkQueryCommand times one `dsight query` in process, report open
// included (process start is what tools/clibench adds): the report is
// DSIGHT_BENCH_REPORT, e.g. a scale-10 build; without it the benchmark is
// skipped. Run with -cpuprofile to see where the open goes:
//
//	DSIGHT_BENCH_REPORT=/tmp/rep10 go test -run '^$' -bench QueryCommand -benchmem ./cmd/build
func BenchmarkQueryCommand(b *testing.B) {
	dir := os.Getenv("DSIGHT_BENCH_REPORT")
	if dir == "" {
		b.Skip("set DSIGHT_BENCH_REPORT to a report directory")
	}
	for _, q := range [][]string{
		{"summary"},
		{"requests", "--limit", "20"},
		{"sessions", "--limit", "20"},
		{"workers"},
		{"metric_families"},
		{"sources", "--limit", "20"},
		{"server_spans", "--limit", "20"},
		{"requests", "--limit", "1000"},
		{"iterations"},
		{"metric_series", "--limit", "100"},
		{"profiles"},
		{"request", "--request", firstRequest(b, dir)},
		{"lifecycle", "--request", firstRequest(b, dir)},
		{"metrics", "--name", firstFamily(b, dir), "--from", "8544.281", "--to", "8549.281"},
		{"metrics", "--name", firstFamily(b, dir), "--points"},
	} {
		name := strings.Join(q[:min(len(q), 3)], "_")
		if q[0] == "metrics" {
			name = "metrics_" + q[3]
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				if err := queryCmd(append([]string{dir}, q...), io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// firstRequest is the id of the report's first request.
func firstRequest(b *testing.B, dir string) string {
	var out bytes.Buffer
	if err := queryCmd([]string{dir, "requests", "--limit", "1"}, &out); err != nil {
		b.Fatal(err)
	}
	var page struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := json.Unmarshal(out.Bytes(), &page); err != nil || len(page.Items) == 0 {
		b.Fatalf("no first request: %v", err)
	}
	return page.Items[0].ID
}

// firstFamily is the name of the report's first metric family.
func firstFamily(b *testing.B, dir string) string {
	var out bytes.Buffer
	if err := queryCmd([]string{dir, "metric_families"}, &out); err != nil {
		b.Fatal(err)
	}
	var fams struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	}
	if err := json.Unmarshal(out.Bytes(), &fams); err != nil || len(fams.Items) == 0 {
		b.Fatalf("no metric family: %v", err)
	}
	return fams.Items[0].Name
}
