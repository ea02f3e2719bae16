package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/dsight/dsight/internal/golden"
	"github.com/dsight/dsight/internal/perfetto"
	"github.com/dsight/dsight/tools/gen/synth"
)

// exportReport builds a generated run with every source kind into a report.
func exportReport(t *testing.T) string {
	t.Helper()
	needAssets(t)
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	src, err := synth.ParseSources("aiperf,frontend,otel,workers,sglang,tokenspeed,tachometer,nsight")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteRun(run, synth.Config{Seed: 5, Requests: 60, Sources: src, NsightRanges: 400, ClockOddities: true}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	if code, _, stderr := dsight(t, "build", run, "-o", out, "--iteration-timezone", "UTC"); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	return out
}

// `dsight export perfetto` writes a trace that decodes with the protobuf
// wire reader under Trace Processor's rules (perfetto.Decode: packets on
// one sequence with their flags, interning, descriptors before use, strict
// nesting, closed slices, ordered timestamps, paired flows), gzip-wrapped
// when asked, and whose summary matches the golden one.
func TestExportPerfetto(t *testing.T) {
	rep := exportReport(t)
	dir := t.TempDir()
	plain, gz := filepath.Join(dir, "run.pftrace"), filepath.Join(dir, "run.pftrace.gz")
	said := map[string]string{}
	for _, out := range []string{plain, gz} {
		code, stdout, stderr := dsight(t, "export", "perfetto", rep, "-o", out)
		if code != 0 || !strings.Contains(stdout, "wrote "+out) {
			t.Fatalf("export %s: %d %s %s", out, code, stdout, stderr)
		}
		said[out] = stdout
	}
	raw, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	// Both name the trace's size; the .gz its own.
	traceSize := fmt.Sprintf("the trace is %d bytes", len(raw))
	if !strings.Contains(said[plain], fmt.Sprintf("(%d bytes; %s)", len(raw), traceSize)) || !strings.Contains(said[gz], traceSize) {
		t.Errorf("the export says %q and %q for a %d-byte trace", said[plain], said[gz], len(raw))
	}
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unzipped, raw) {
		t.Fatalf("the .gz export is not the gzip of the plain one (%v)", err)
	}
	tr, err := perfetto.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	sum := tr.Summarize()
	got, _ := json.MarshalIndent(sum, "", "  ")
	golden.Check(t, filepath.Join("testdata", "perfetto-summary.json"), append(got, '\n'))

	// What the summary cannot show: every group and process present, each
	// counter track with its unit, NVTX on thread tracks, flows from
	// client requests to server slices.
	want := []string{"Concurrency", "Throughput", "Latency", "Other metrics", "Client requests (aiperf)"}
	for _, w := range want {
		if !contains(sum.TopTracks, w) {
			t.Errorf("no top-level track %q in %v", w, sum.TopTracks)
		}
	}
	counters, withUnit := 0, 0
	byUUID := map[uint64]perfetto.Track{}
	for _, tk := range tr.Tracks {
		byUUID[tk.UUID] = tk
		if tk.Counter != nil {
			counters++
			if tk.Counter.UnitName != "" {
				withUnit++
			}
		}
	}
	if counters == 0 || withUnit != counters || sum.ThreadTracks == 0 || sum.Flows == 0 {
		t.Errorf("%d counter tracks (%d with a unit), %d thread tracks, %d flows", counters, withUnit, sum.ThreadTracks, sum.Flows)
	}
	clientSlices := 0
	for _, ev := range tr.Events {
		if ev.Type != perfetto.Begin {
			continue
		}
		if len(ev.Flows) > 0 && ev.Name != "request" && !strings.HasPrefix(ev.Name, "request (") {
			t.Fatalf("a flow starts at %q, not at a client request", ev.Name)
		}
		if ev.Depth == 0 && strings.HasPrefix(ev.Name, "request") {
			clientSlices++
			if src, _ := ev.Args["source"].(string); !strings.Contains(src, "profile_export.jsonl:") {
				t.Fatalf("request %v has no source file:line", ev.Args)
			}
		}
	}
	if clientSlices != sum.SliceNames["request"]+sum.SliceNames["request (error)"]+sum.SliceNames["request (cancelled)"] || clientSlices == 0 {
		t.Errorf("%d request slices", clientSlices)
	}
	// A second export of the same report is byte-identical.
	again := filepath.Join(dir, "again.pftrace")
	if code, _, stderr := dsight(t, "export", "perfetto", rep, "-o", again); code != 0 {
		t.Fatal(stderr)
	}
	if b, _ := os.ReadFile(again); !bytes.Equal(b, raw) {
		t.Error("two exports of one report differ")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestExportUsage(t *testing.T) {
	for _, argv := range [][]string{{"export"}, {"export", "chrome", "r"}, {"export", "perfetto", "r"}} {
		if code, _, _ := dsight(t, argv...); code != 2 {
			t.Errorf("%v exits %d, want 2", argv, code)
		}
	}
	if code, stdout, _ := dsight(t, "export", "-h"); code != 0 || !strings.Contains(stdout, "dsight export perfetto REPORT") {
		t.Errorf("export -h: %d %s", code, stdout)
	}
}

// A failed write leaves neither the trace nor a temporary file behind.
func TestWriteAtomicRemovesOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.pftrace")
	_, err := writeAtomic(path, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return os.ErrClosed
	})
	if err == nil {
		t.Fatal("a failed write was reported as written")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind %v", ents)
	}
}
