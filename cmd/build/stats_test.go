package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// `dsight query REPORT stats` loads the metric shards the answer names and
// covers the session metrics the build derived, marked derived, beside the
// requests.
func TestQueryStatsLoadsMetricShards(t *testing.T) {
	needAssets(t)
	runDir := genMetricsRun(t)
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", runDir, "-o", out, "--iteration-timezone", "UTC"); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	code, stdout, stderr := dsight(t, "query", out, "stats", "--name", "session_in_flight_requests", "--from", "10", "--to", "200")
	if code != 0 {
		t.Fatal(stderr)
	}
	var ans struct {
		Requests struct {
			Count   int `json:"count"`
			Latency struct {
				Samples int      `json:"samples"`
				P99     *float64 `json:"p99"`
			} `json:"latency_s"`
		} `json:"requests"`
		Series []struct {
			Name    string   `json:"name"`
			Derived bool     `json:"derived"`
			Samples int64    `json:"samples"`
			Mean    *float64 `json:"mean"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(stdout), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Requests.Count == 0 || ans.Requests.Latency.Samples == 0 || ans.Requests.Latency.P99 == nil {
		t.Fatalf("requests: %+v", ans.Requests)
	}
	if len(ans.Series) == 0 {
		t.Fatalf("no series: %s", stdout)
	}
	for _, s := range ans.Series {
		if s.Name != "session_in_flight_requests" || !s.Derived || s.Mean == nil {
			t.Fatalf("series %+v", s)
		}
	}
}
