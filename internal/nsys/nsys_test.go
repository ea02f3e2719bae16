package nsys

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/golden"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/nsys/nsystest"
)

const (
	epoch = int64(1_790_000_000_000_000_000)
	clock = int64(5_000_000_000)
)

// base is a small frontend export: a capture of [1 s, 3 s] on the session
// timeline, ranges in every category and outside them.
func base() nsystest.Export {
	tid := int64(4242)<<24 | 7
	big := int64(1)<<60 | int64(4242)<<24 | 9 // above 2^53
	e := nsystest.End
	return nsystest.Export{
		EpochNS: epoch, SystemClockNS: clock, StartTime: clock + 1_000_000_000, StopTime: clock + 3_000_000_000,
		Host: "node-a",
		Ranges: []nsystest.Range{
			{Start: 1_100_000_000, End: e(1_200_000_000), Name: "preprocess.tokenize", GlobalTID: tid},
			{Start: 1_100_000_000, End: e(1_300_000_000), Name: "route.select", GlobalTID: big},
			{Start: 1_150_000_000, End: e(1_160_000_000), Name: "transport.send", Inline: true, GlobalTID: tid},
			{Start: 1_200_000_000, End: e(1_250_000_000), Name: "[Executor] step", GlobalTID: tid},
			{Start: 1_210_000_000, End: e(1_220_000_000), Name: "_forward_step 3", GlobalTID: tid},
			{Start: 1_300_000_000, End: e(1_400_000_000), Name: "scheduler.run_batch", GlobalTID: tid},
			{Start: 1_400_000_000, End: e(1_500_000_000), Name: "forward_step decode", GlobalTID: tid},
			{Start: 1_450_000_000, End: e(1_460_000_000), Name: "graph_replay", GlobalTID: tid},
			{Start: 1_460_000_000, End: e(1_470_000_000), Name: "loop:commit", GlobalTID: tid},
			{Start: 1_470_000_000, End: e(1_480_000_000), Name: "zero_cache_pages", GlobalTID: tid},
			// Outside every category: operator ranges, other engines.
			{Start: 1_500_000_000, End: e(1_600_000_000), Name: "aten::matmul", GlobalTID: tid},
			{Start: 1_500_000_000, End: e(1_600_000_000), Name: "gpu_model_runner: forward", GlobalTID: tid},
			{Start: 1_500_000_000, End: e(1_600_000_000), Name: "forward_stepX", GlobalTID: tid},
			// A NULL name, a mark, an inverted range, ranges leaving the capture.
			{Start: 1_600_000_000, End: e(1_700_000_000), Null: true, GlobalTID: tid},
			{Start: 1_600_000_000, Name: "preprocess.mark", GlobalTID: tid},
			{Start: 1_800_000_000, End: e(1_700_000_000), Name: "preprocess.inverted", GlobalTID: tid},
			{Start: 900_000_000, End: e(1_100_000_000), Name: "preprocess.early", GlobalTID: tid},
			{Start: 2_900_000_000, End: e(3_100_000_000), Name: "preprocess.late", GlobalTID: tid},
		},
		Threads: []nsystest.Thread{{GlobalTID: tid, Name: "frontend-main"}, {GlobalTID: big, Name: "router"}},
		Samples: []nsystest.Sample{
			{Start: 1_100_000_000, GlobalTID: tid, Frames: []string{"leaf", "mid", "main"}},
			{Start: 1_200_000_000, GlobalTID: tid, Frames: []string{"leaf", "leaf", "main"}, Unresolved: []bool{false, true}},
			{Start: 1_300_000_000, GlobalTID: int64(99) << 24, Frames: []string{"other"}}, // another process
			{Start: 3_500_000_000, GlobalTID: tid, Frames: []string{"late"}},              // after the capture
		},
		CUDA:        true,
		Diagnostics: []nsystest.Diagnostic{{Severity: 2, Text: "buffer full"}, {Severity: 1, Text: "info only"}, {Severity: 3, Text: "lost events"}, {Severity: 2, Text: "buffer full"}},
	}
}

func write(t *testing.T, name string, e nsystest.Export) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := nsystest.Write(path, e); err != nil {
		t.Fatal(err)
	}
	return path
}

func read(t *testing.T, name string, e nsystest.Export, opt Options) *model.Profile {
	t.Helper()
	p, err := Read(write(t, name, e), "nsys/"+name, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func names(p *model.Profile) []string {
	out := []string{}
	for _, r := range p.Ranges {
		out = append(out, p.Names[r.Name])
	}
	return out
}

func TestCategoriesAndCounts(t *testing.T) {
	p := read(t, "front_frontend_0.sqlite", base(), Options{})
	want := []string{"preprocess.tokenize", "route.select", "transport.send", "[Executor] step", "_forward_step 3",
		"scheduler.run_batch", "forward_step decode", "graph_replay", "loop:commit", "zero_cache_pages"}
	// (start, end descending): route.select (longer) precedes preprocess.tokenize.
	want[0], want[1] = want[1], want[0]
	if got := names(p); !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
	c := p.Counts
	if c.Rows != 18 || c.Marks != 1 || c.InvalidOrBoundary != 3 || c.Scanned != 14 || c.NullNames != 1 || c.Unselected != 3 || c.Selected != 10 || c.Kept != 10 {
		t.Errorf("counts %+v", c)
	}
	if p.Truncated || p.Limit != DefaultMaxEvents {
		t.Errorf("truncated %v limit %d", p.Truncated, p.Limit)
	}
	if p.Capture != [2]int64{1_000_000_000, 3_000_000_000} || p.EpochNS != epoch || *p.SystemClockNS != clock {
		t.Errorf("capture %v epoch %d clock %v", p.Capture, p.EpochNS, p.SystemClockNS)
	}
	if !p.CUDA || !slices.Equal(p.Diagnostics, []string{"buffer full", "lost events"}) {
		t.Errorf("cuda %v diagnostics %q", p.CUDA, p.Diagnostics)
	}
	if *p.Host != "node-a" || p.HostSource != "system environment" || p.Worker != "frontend" {
		t.Errorf("host %v (%s) worker %s", *p.Host, p.HostSource, p.Worker)
	}
}

func TestCategoryDefinitions(t *testing.T) {
	for name, cat := range map[string]string{
		"preprocess.x": "frontend", "route.x": "frontend", "transport.x": "frontend",
		"[Executor] x": "trtllm", "_schedule": "trtllm", "prepare_resources": "trtllm", "RpcWorker.submit": "trtllm",
		"scheduler.process_batch_result": "sglang", "forward_step 1": "tokenspeed", "commit:sync": "tokenspeed",
		"output_d2h": "tokenspeed", "sampling_prep": "tokenspeed",
	} {
		if d, ok := Classify(name); !ok || d.Category != cat {
			t.Errorf("Classify(%q) = %v %v, want %s", name, d, ok, cat)
		}
	}
	// Names the guide does not list stay in the export.
	for _, name := range []string{"router.pick", "tokenize", "detokenize", "kv_router.x", "compute_x", "schedule: update_after_schedule", "graph_replay2", ""} {
		if _, ok := Classify(name); ok {
			t.Errorf("Classify(%q) selected a name outside the categories", name)
		}
	}
}

func TestThreadIDsAboveFloatPrecision(t *testing.T) {
	p := read(t, "front_frontend_0.sqlite", base(), Options{})
	big := int64(1)<<60 | int64(4242)<<24 | 9
	if float64(big) != float64(big+1) {
		t.Fatal("test id must not survive a float64")
	}
	r := p.Ranges[0]
	if r.GlobalTID != big || model.PID(r.GlobalTID) != 4242 || model.TID(r.GlobalTID) != 9 {
		t.Errorf("global tid %d (pid %d tid %d), want %d", r.GlobalTID, model.PID(r.GlobalTID), model.TID(r.GlobalTID), big)
	}
	var found bool
	for _, th := range p.Threads {
		if th.GlobalTID == big {
			found = th.Name != nil && *th.Name == "router"
		}
	}
	if !found {
		t.Errorf("threads %+v lack %d named router", p.Threads, big)
	}
}

func TestCPUSamples(t *testing.T) {
	p := read(t, "front_frontend_0.sqlite", base(), Options{})
	if p.CPU == nil || p.CPU.PID != 4242 || len(p.CPU.Samples) != 2 {
		t.Fatalf("cpu %+v", p.CPU)
	}
	stack := func(k int) []string {
		var out []string
		for _, f := range p.CPU.Stacks[p.CPU.Samples[k].Stack] {
			out = append(out, p.CPU.Symbols[f])
		}
		return out
	}
	if got := stack(1); !slices.Equal(got, []string{"leaf", "[unresolved] leaf", "main"}) {
		t.Errorf("stack %q", got)
	}
	// Workers get no CPU samples.
	if w := read(t, "h_decode_w0_profile_rank1.sqlite", base(), Options{}); w.CPU != nil {
		t.Errorf("worker profile has cpu %+v", w.CPU)
	}
}

func TestTruncatedImport(t *testing.T) {
	p := read(t, "front_frontend_0.sqlite", base(), Options{MaxEvents: 4})
	if !p.Truncated || len(p.Ranges) != 4 || p.Counts.Selected != 10 || p.Counts.Kept != 4 {
		t.Errorf("truncated %v kept %d counts %+v", p.Truncated, len(p.Ranges), p.Counts)
	}
	if r, _ := p.ImportedRange(); r != [2]int64{1_100_000_000, 1_300_000_000} {
		t.Errorf("imported range %v", r)
	}
	// Exactly reaching the limit is not truncation.
	if p := read(t, "front_frontend_0.sqlite", base(), Options{MaxEvents: 10}); p.Truncated || len(p.Ranges) != 10 {
		t.Errorf("limit reached exactly: truncated %v kept %d", p.Truncated, len(p.Ranges))
	}
}

func TestEmptyAndMissingTables(t *testing.T) {
	e := base()
	e.Ranges = nil
	p := read(t, "h_agg_w0_profile_gpu0-1.sqlite", e, Options{})
	if len(p.Ranges) != 0 || p.Counts.Rows != 0 || len(p.Schema.Missing) != 0 {
		t.Errorf("empty NVTX table: %d ranges, counts %+v, missing %q", len(p.Ranges), p.Counts, p.Schema.Missing)
	}
	if _, ok := p.ImportedRange(); ok {
		t.Error("an empty profile has an imported range")
	}
	// A GPU-set name implies no rank.
	if p.Rank != nil || *p.GPUs != "0-1" || p.Worker != "agg-0" {
		t.Errorf("identity rank %v gpus %v worker %s", p.Rank, p.GPUs, p.Worker)
	}

	e = base()
	e.Omit = []string{"NVTX_EVENTS", "ThreadNames", "DIAGNOSTIC_EVENT", "SAMPLING_CALLCHAINS"}
	e.NoSystemClock = true
	p = read(t, "front_frontend_0.sqlite", e, Options{})
	if want := []string{"NVTX_EVENTS", "SAMPLING_CALLCHAINS", "TARGET_INFO_SESSION_START_TIME.systemClockNs"}; !slices.Equal(p.Schema.Missing, want) {
		t.Errorf("missing %q, want %q", p.Schema.Missing, want)
	}
	if p.SystemClockNS != nil || p.Capture[0] != clock+1_000_000_000 || p.CPU != nil || p.Diagnostics != nil {
		t.Errorf("clock %v capture %v cpu %v diag %v", p.SystemClockNS, p.Capture, p.CPU, p.Diagnostics)
	}

	// Without StringIds only inline names survive, and the table is named.
	e = base()
	e.Omit = []string{"StringIds"}
	p = read(t, "front_frontend_0.sqlite", e, Options{})
	if !slices.Contains(p.Schema.Missing, "StringIds") || len(p.Ranges) != 10 {
		t.Errorf("without StringIds: missing %q, %d ranges", p.Schema.Missing, len(p.Ranges))
	}
}

func TestNoSessionAnchor(t *testing.T) {
	for _, e := range []func(*nsystest.Export){
		func(e *nsystest.Export) { e.Omit = []string{"TARGET_INFO_SESSION_START_TIME"} },
		func(e *nsystest.Export) { e.NoAnchorRow = true },
	} {
		x := base()
		e(&x)
		path := write(t, "h_decode_w0_profile_rank0.sqlite", x)
		_, err := Read(path, "run/nsys/h_decode_w0_profile_rank0.sqlite", Options{})
		if err == nil || !strings.Contains(err.Error(), "run/nsys/h_decode_w0_profile_rank0.sqlite") || !strings.Contains(err.Error(), "no session anchor") {
			t.Errorf("err = %v, want a no-session-anchor error naming the file", err)
		}
	}
	x := base()
	x.Omit = []string{"ANALYSIS_DETAILS"}
	if _, err := Read(write(t, "a.sqlite", x), "a.sqlite", Options{}); err == nil || !strings.Contains(err.Error(), "a.sqlite: no capture window") {
		t.Errorf("err = %v, want a no-capture-window error", err)
	}
}

func TestNotSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.sqlite")
	if err := os.WriteFile(path, []byte("not a database at all, just text that is long enough"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path, "x.sqlite", Options{}); err == nil || !strings.Contains(err.Error(), "x.sqlite") {
		t.Errorf("err = %v", err)
	}
}

func TestUnmappedName(t *testing.T) {
	p := read(t, "capture-17.sqlite", base(), Options{})
	if p.Mapped || p.Worker != model.ProfileUnmapped || p.Role != nil || p.Rank != nil || len(p.Ranges) != 10 {
		t.Errorf("unmapped: %+v", p)
	}
	if p.CPU != nil {
		t.Error("an unmapped profile is not a frontend")
	}
}

func TestReadLeavesFileUnchanged(t *testing.T) {
	path := write(t, "front_frontend_0.sqlite", base())
	before, _ := os.ReadFile(path)
	if _, err := Read(path, "f", Options{}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("reading changed the export")
	}
}

func TestGolden(t *testing.T) {
	p := read(t, "node-a_decode_w1_e2_profile_rank3_window001.sqlite", base(), Options{})
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/small.golden.json", append(b, '\n'))
}
