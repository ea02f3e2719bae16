package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/tools/gen/synth"
)

// -o a/b/c creates the missing parents, as the reference does.
func TestBuildCreatesTheOutputParents(t *testing.T) {
	needAssets(t)
	out := filepath.Join(t.TempDir(), "a", "b", "c")
	if code, _, stderr := dsight(t, "build", genRun(t), "-o", out); code != 0 {
		t.Fatalf("build -o a/b/c: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Fatal(err)
	}
}

// --metrics given a Prometheus text scrape says what the file looks like and
// what a capture is, not "truncated Arrow IPC stream".
func TestMetricsFlagNamesAPrometheusScrape(t *testing.T) {
	needAssets(t)
	scrape := filepath.Join(t.TempDir(), "metrics.txt")
	if err := os.WriteFile(scrape, []byte("# HELP sglang:num_running_reqs running\n# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := dsight(t, "build", genRun(t), "-o", filepath.Join(t.TempDir(), "r"), "--metrics", scrape)
	all := stdout + stderr
	if !strings.Contains(all, "Prometheus text scrape") || !strings.Contains(all, "Tachometer") || strings.Contains(all, "truncated Arrow") {
		t.Fatalf("exit %d, output:\n%s", code, all)
	}
}

// describe().available for real generated runs, against expectations
// written by hand from reference-behaviour.md §3.9: server_activity is an
// independent server span, hardware_metrics a GPU or Host family.
func TestCapabilitiesOfGeneratedRuns(t *testing.T) {
	needAssets(t)
	type caps = query.Capabilities
	for _, tc := range []struct {
		name    string
		sources synth.Sources
		want    caps
	}{
		// Client requests always give the derived session metrics, which
		// are not recorded metrics.
		{"client only", synth.SourceAIPerf, caps{Requests: true, DerivedMetrics: true}},
		// OTel alone: every span is independent, so server_spans has them.
		{"OTel only", synth.SourceOTel, caps{ServerActivity: true}},
		// The generated capture scrapes DCGM (GPU), the frontend and workers.
		{"metrics only", synth.SourceTachometer, caps{Metrics: true, WorkerMetrics: true, HardwareMetrics: true}},
		// Every generated span joins its request through the frontend bridge:
		// no independent server span, so no server activity.
		{"traced, every span joined", synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers, caps{Requests: true, RequestBreakdown: true, DerivedMetrics: true}},
		// Without the frontend's bridge lines no span joins: they are all
		// independent server spans beside the client requests.
		{"client with unjoined spans", synth.SourceAIPerf | synth.SourceOTel, caps{Requests: true, ServerActivity: true, DerivedMetrics: true}},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		if _, err := synth.WriteRun(dir, synth.Config{Seed: 5, Requests: 40, Sources: tc.sources}); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "r")
		if code, _, stderr := dsight(t, "build", dir, "-o", out); code != 0 {
			t.Fatalf("%s: build: %s", tc.name, stderr)
		}
		code, stdout, stderr := dsight(t, "query", out, "summary")
		if code != 0 {
			t.Fatalf("%s: query: %s", tc.name, stderr)
		}
		var sum query.Summary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Capabilities != tc.want {
			t.Errorf("%s: available %+v, want %+v", tc.name, sum.Capabilities, tc.want)
		}
	}
}

// A capture holding only engine gauges (SGLang, TokenSpeed, vLLM Prometheus
// families scraped from a worker endpoint) has worker metrics and no
// hardware metrics: engine families belong to Workers, never Host.
func TestEngineGaugesOnlyCapture(t *testing.T) {
	needAssets(t)
	run := filepath.Join(t.TempDir(), "run")
	leaf := filepath.Join(run, "logs", "tachometer", "local", "engine-capture")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(leaf, "final.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	series := []tachometer.CaptureSeries{{Endpoint: "sglang-worker-0", Name: "sglang:num_running_reqs"}, {Endpoint: "sglang-worker-0", Name: "tokenspeed:kv_cache_usage_perc"}, {Endpoint: "node-3", Name: "vllm:num_requests_waiting"}}
	const t0 = int64(1_780_000_000_000_000_000)
	w, err := tachometer.NewCaptureWriter(f, tachometer.EncodingParquet, series, tachometer.CaptureOptions{StartNS: t0})
	if err != nil {
		t.Fatal(err)
	}
	for k := range int64(60) {
		for i := range series {
			if err := w.Write(tachometer.CaptureSample{Series: int32(i), TimeNS: t0 + k*1e9, Value: float64(k % 5)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(t.TempDir(), "r")
	if code, _, stderr := dsight(t, "build", run, "-o", out); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	_, stdout, _ := dsight(t, "query", out, "summary")
	var sum query.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if want := (query.Capabilities{Metrics: true, WorkerMetrics: true}); sum.Capabilities != want {
		t.Errorf("available %+v, want %+v", sum.Capabilities, want)
	}
}

// A wrong --iteration-timezone no longer drops the log metrics silently:
// each source most of whose points fall outside the run window is named in
// a warning (summary, hence the page), and the loss is counted.
func TestWrongIterationTimezoneIsNamed(t *testing.T) {
	needAssets(t)
	run := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(run, synth.Config{Seed: 5, Requests: 60, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceWorkers | synth.SourceTokenSpeed, Timezone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	summary := func(zone string) query.Summary {
		out := filepath.Join(t.TempDir(), "r")
		if code, _, stderr := dsight(t, "build", run, "-o", out, "--iteration-timezone", zone); code != 0 {
			t.Fatalf("build: %s", stderr)
		}
		_, stdout, _ := dsight(t, "query", out, "summary")
		var sum query.Summary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	warned := func(s query.Summary) int {
		n := 0
		for _, w := range s.Meta.Warnings {
			if strings.Contains(w, "fall outside the run window once aligned in") && strings.Contains(w, "--iteration-timezone") {
				n++
			}
		}
		return n
	}
	wrong := summary("UTC")
	if warned(wrong) == 0 || wrong.Audit["out_of_window_log_metric_points"] == 0 {
		t.Errorf("UTC on Tokyo logs: warnings %q, audit %v", wrong.Meta.Warnings, wrong.Audit)
	}
	if right := summary("Asia/Tokyo"); warned(right) != 0 {
		t.Errorf("the right zone warned: %q", right.Meta.Warnings)
	}
}
