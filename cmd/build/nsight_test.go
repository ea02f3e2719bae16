package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/nsys/nsystest"
)

// nsightRun writes a run holding only Nsight exports: a frontend export
// under logs/ and a worker export elsewhere, given with --nsys-sqlite.
func nsightRun(t *testing.T, ranges int) (run, extra string, bigTID int64) {
	t.Helper()
	run = filepath.Join(t.TempDir(), "run")
	extra = filepath.Join(t.TempDir(), "profiles")
	for _, d := range []string{filepath.Join(run, "logs"), extra} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bigTID = int64(1)<<58 | int64(321)<<24 | 11
	const epoch, clock = int64(1_790_000_000_000_000_000), int64(2_000_000_000)
	fe := nsystest.Export{EpochNS: epoch, SystemClockNS: clock, StartTime: clock, StopTime: clock + 4_000_000_000, Host: "fe-host",
		Threads: []nsystest.Thread{{GlobalTID: bigTID, Name: "tokio-runtime"}}}
	for k := range ranges {
		name := []string{"preprocess.tokenize", "route.pick", "transport.send", "aten::mm"}[k%4]
		fe.Ranges = append(fe.Ranges, nsystest.Range{Start: int64(k) * 100_000, End: nsystest.End(int64(k)*100_000 + 50_000), Name: name, GlobalTID: bigTID})
	}
	for k := range 50 {
		fe.Samples = append(fe.Samples, nsystest.Sample{Start: int64(k) * 10_000_000, GlobalTID: bigTID, Frames: []string{"poll", "poll", "main"}})
	}
	if err := nsystest.Write(filepath.Join(run, "logs", "fe-host_frontend_0.sqlite"), fe); err != nil {
		t.Fatal(err)
	}
	// The worker's session starts 1 s after the frontend's and runs 4 s:
	// the run is framed by the union, 5 s.
	wk := nsystest.Export{EpochNS: epoch + 1_000_000_000, SystemClockNS: clock, StartTime: clock, StopTime: clock + 4_000_000_000,
		Ranges: []nsystest.Range{{Start: 0, End: nsystest.End(3_000_000_000), Name: "scheduler.run_batch", GlobalTID: 5<<24 | 6}}}
	if err := nsystest.Write(filepath.Join(extra, "wk_decode_w1_profile_gpu0-1.sqlite"), wk); err != nil {
		t.Fatal(err)
	}
	return run, extra, bigTID
}

func queryJSON(t *testing.T, out string, argv ...string) map[string]any {
	t.Helper()
	code, stdout, stderr := dsight(t, append([]string{"query", out}, argv...)...)
	if code != 0 {
		t.Fatalf("query %v: %s", argv, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNsightOnlyRunBuildsAndQueries(t *testing.T) {
	needAssets(t)
	run, extra, big := nsightRun(t, 20_000)
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", run, "-o", out, "--nsys-sqlite", extra); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	sum := queryJSON(t, out, "summary")
	meta := sum["meta"].(map[string]any)
	caps := sum["capabilities"].(map[string]any)
	if meta["duration"] != 5.0 || caps["nvtx"] != true || caps["cpu_samples"] != true || caps["nsight"] != true {
		t.Fatalf("summary meta %v capabilities %v", meta, caps)
	}
	profiles := queryJSON(t, out, "profiles")
	if profiles["total"] != 2.0 {
		t.Fatalf("profiles %v", profiles)
	}
	wk := profiles["items"].([]any)[1].(map[string]any)
	if wk["worker"] != "decode-1" || wk["rank"] != nil || wk["gpus"] != "0-1" {
		t.Errorf("worker profile %v", wk)
	}
	// 15,000 frontend ranges are selected (aten::mm is not); a page deep
	// inside reads only the shards it needs.
	nsys := queryJSON(t, out, "nsys", "--profile", "0", "--offset", "12000", "--limit", "2")
	items := nsys["items"].([]any)
	first := items[0].(map[string]any)
	if nsys["total"] != 15000.0 || len(items) != 2 || first["global_tid"] != strconv.FormatInt(big, 10) || first["pid"] != 321.0 || first["tid"] != 11.0 {
		t.Fatalf("nsys total %v first %v", nsys["total"], first)
	}
	named := queryJSON(t, out, "nsys", "--name", "ROUTE", "--from", "0", "--to", "1", "--limit", "0")
	if named["total"] != 2500.0 {
		t.Errorf("route ranges in the first second: %v", named["total"])
	}
	// The worker's range starts 1 s into the run (its own session anchor).
	w := queryJSON(t, out, "nsys", "--worker", "decode-1")
	if it := w["items"].([]any)[0].(map[string]any); it["start"] != 1.0 || it["end"] != 4.0 {
		t.Errorf("worker range %v", it)
	}
	cpu := queryJSON(t, out, "cpu")
	hot := cpu["hotspots"].([]any)
	if cpu["total_samples"] != 50.0 || len(hot) != 2 || hot[0].(map[string]any)["samples"] != 50.0 {
		t.Errorf("cpu %v", cpu)
	}
}

func TestMaxProfileEventsTruncatesExplicitly(t *testing.T) {
	needAssets(t)
	run, extra, _ := nsightRun(t, 400)
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", run, "-o", out, "--nsys-sqlite", extra, "--max-profile-events", "100"); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	manifest, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), "kept 100 of 300 selected NVTX ranges") || !strings.Contains(string(manifest), `"nsight_truncated_profiles": 1`) {
		t.Errorf("manifest does not state the truncation")
	}
	nsys := queryJSON(t, out, "nsys", "--profile", "0", "--limit", "0")
	tr := nsys["truncated"].([]any)
	if nsys["total"] != 100.0 || len(tr) != 1 || tr[0].(map[string]any)["selected"] != 300.0 || tr[0].(map[string]any)["imported_range"] == nil {
		t.Errorf("nsys truncation %v", nsys)
	}
	if code, _, _ := dsight(t, "build", run, "-o", out, "--nsys-sqlite", filepath.Join(extra, "missing.sqlite")); code == 0 {
		t.Error("a missing --nsys-sqlite path built")
	}
}
