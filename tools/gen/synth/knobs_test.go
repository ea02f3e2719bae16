package synth

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/agentperf"
)

// The alternative client, the fault knobs and the capture scale, each
// judged by the parsers as in sources_test.go.

func TestAgentPerfClient(t *testing.T) {
	v := generate(t, Config{Seed: 9, Requests: 500, Sources: SourceAgentPerf | SourceFrontend | SourceWorkers})
	req := v.files(KindAgentPerfRequests)[0]
	res := parseAgentPerf(t, filepath.Join(v.dir, req.Path), "profiling")
	c := v.p.Counts()
	var profCancelled int
	for i := range v.p.Requests {
		if r := &v.p.Requests[i]; r.Phase == Profiling && r.Outcome == Cancelled {
			profCancelled++
		}
	}
	if res.Rows != c.Requests || len(res.Requests) != c.Profiling || res.Excluded != c.Warmup ||
		res.LivenessOnly != profCancelled || res.UnmatchedAnalysis != 0 || res.WithoutPhase != 0 {
		t.Errorf("agentperf: rows %d kept %d excluded %d liveness %d unmatched %d unphased %d; want %d rows, %d profiling, %d warmup, %d cancelled",
			res.Rows, len(res.Requests), res.Excluded, res.LivenessOnly, res.UnmatchedAnalysis, res.WithoutPhase, c.Requests, c.Profiling, c.Warmup, profCancelled)
	}
	v.readFrontends(t)
	v.readWorkers(t)
	if len(v.bridges) == 0 || len(v.bindings) == 0 {
		t.Fatal("no bridges or bindings")
	}
	for _, b := range v.bridges {
		if len(b.ClientID) != 32 || strings.Contains(b.ClientID, "-") {
			t.Errorf("%s: client id %q is not AgentPerf's 32-hex x_request_id", b.Ref, b.ClientID)
		}
	}
}

func TestFaultKnobs(t *testing.T) {
	v := generate(t, Config{Seed: 11, Requests: 1500, OTelUntraced: 0.2, OTelDuplicate: true, ClockOddities: true,
		Sources: SourceAIPerf | SourceFrontend | SourceOTel | SourceWorkers})
	v.readFrontends(t)
	v.readWorkers(t)
	v.readSpans(t)

	// -otel-duplicate: a second collector holds an identical copy of every span.
	if len(v.spans.Files) != 2 || int64(len(v.spans.Duplicates)) != v.s.Spans || v.spans.Files[1].Duplicates != v.s.Spans {
		t.Errorf("duplicate export: %d files, %d duplicates of %d spans", len(v.spans.Files), len(v.spans.Duplicates), v.s.Spans)
	}
	// -otel-untraced: that fraction of requests has bridges but no spans.
	ls := v.lifecycles(t)
	traced := map[int]bool{}
	for id := range ls {
		traced[v.server[id]] = true
	}
	untraced := 0
	for i := range v.p.Requests {
		if !traced[i] {
			untraced++
		}
	}
	if untraced != v.s.Untraced || untraced < 15*len(v.p.Requests)/100 || untraced > 25*len(v.p.Requests)/100 {
		t.Errorf("%d of %d requests untraced, summary %d, want about 20%%", untraced, len(v.p.Requests), v.s.Untraced)
	}

	// -clock-oddities: one of each, as documented.
	if len(v.s.Oddities) != 3 {
		t.Fatalf("oddities %+v", v.s.Oddities)
	}
	for _, o := range v.s.Oddities {
		i := v.byClient[o.ClientID]
		r := &v.p.Requests[i]
		first := r.StartNS + r.TTFTNS
		l := ls[o.ServerIDs[len(o.ServerIDs)-1]]
		switch o.Kind {
		case "skew":
			if end := l["worker.admission@prefill"].EndNS; end <= first {
				t.Errorf("skew: prefill transport ready at %d, before the first token %d", end, first)
			}
		case "non-monotonic":
			admit, sel, route := l["worker.admission@decode"], l["kv_router.select_worker#1"], l["kv_router.route_request#1"]
			if admit.EndNS >= sel.EndNS || admit.StartNS >= route.StartNS {
				t.Errorf("non-monotonic: decode admission [%d, %d] not before selection end %d and route start %d", admit.StartNS, admit.EndNS, sel.EndNS, route.StartNS)
			}
		case "retry":
			var servers []string
			for _, b := range v.bridges {
				if b.ClientID == o.ClientID {
					servers = append(servers, b.ServerID)
					if !b.ClientAmbiguous {
						t.Errorf("retry: bridge %s → %s not flagged ambiguous", b.ClientID, b.ServerID)
					}
				}
			}
			if !slices.Equal(servers, o.ServerIDs) {
				t.Errorf("retry: bridged to %v, want %v", servers, o.ServerIDs)
			}
			firstLife := ls[o.ServerIDs[0]]["request.lifecycle"]
			if out, _ := firstLife.Attrs.String("dynamo.request.terminal.outcome"); out != "failed" || len(v.bindings[o.ServerIDs[0]]) == 0 {
				t.Errorf("retry: first attempt outcome %q, %d bindings", out, len(v.bindings[o.ServerIDs[0]]))
			}
		default:
			t.Errorf("unknown oddity %q", o.Kind)
		}
	}
	v.checkLifecycles(t, false)
}

// TestSamplesScale checks -samples: idle nodes join the capture until it
// holds the rows asked for, and no more than one node's worth beyond.
func TestSamplesScale(t *testing.T) {
	const want = 300_000
	v := generate(t, Config{Seed: 2, Requests: 120, Sources: SourceTachometer, Samples: want})
	sink, res := v.readCapture(t)
	perNode := int64(len(dcgmFamilies)*gpusPerNode) * int64(res.Series[0].Points)
	if v.s.MetricRows < want || v.s.MetricRows >= want+perNode || res.Audit.Points != v.s.MetricRows {
		t.Errorf("%d rows (%d points), want [%d, %d)", v.s.MetricRows, res.Audit.Points, want, want+perNode)
	}
	idle := 0
	for _, s := range sink.series {
		if s.Worker == "" && s.Endpoint != "frontend" {
			idle++
		}
	}
	if idle == 0 {
		t.Error("no idle-node series")
	}
}

func parseAgentPerf(t *testing.T, path, phase string) *agentperf.Result {
	t.Helper()
	manifest, analyses, err := agentperf.Companions(path)
	if err != nil || manifest == "" || len(analyses) != 1 {
		t.Fatalf("companions of %s: %v, manifest %q, analyses %v", path, err, manifest, analyses)
	}
	open := func(name string) agentperf.Input {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return agentperf.Input{Path: name, Reader: f}
	}
	in := agentperf.Inputs{Requests: open(path)}
	m := open(manifest)
	in.Manifest = &m
	for _, a := range analyses {
		ph, ok := agentperf.AnalysisPhase(filepath.Base(a))
		if !ok {
			t.Fatalf("%s: not an analysis file name", a)
		}
		in.Analyses = append(in.Analyses, agentperf.Analysis{Input: open(a), Phase: ph})
	}
	res, err := agentperf.Parse(in, agentperf.Options{Phase: phase})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGoldenSourcesHead pins the opening lines of every text source of a
// small seed-1 run with the fault knobs on, and the row counts of the
// capture files, so any change to the generated shapes is a deliberate one
// (go test -update). Long lines are cut at 700 bytes.
func TestGoldenSourcesHead(t *testing.T) {
	dir, s := writeTestRun(t, Config{Seed: 1, Requests: 60, ClockOddities: true, OTelUntraced: 0.2,
		Sources: AllSources() &^ SourceAgentPerf, Timezone: "Europe/Paris"})
	var doc bytes.Buffer
	for _, f := range s.Files {
		if f.Kind == KindTachometerFinal || f.Kind == KindTachometerTail || f.Kind == KindNsight {
			fmt.Fprintf(&doc, "== %s: %d rows\n", f.Path, f.Rows)
			continue
		}
		fmt.Fprintf(&doc, "== %s: %d lines\n", f.Path, f.Lines)
		lines := bytes.SplitN(mustRead(t, filepath.Join(dir, f.Path)), []byte("\n"), 7)
		for _, line := range lines[:min(6, len(lines)-1)] {
			if len(line) > 700 {
				line = append(line[:700:700], "…"...)
			}
			doc.Write(line)
			doc.WriteByte('\n')
		}
	}
	golden := filepath.Join("testdata", "sources_seed1_head.txt")
	if *update {
		if err := os.WriteFile(golden, doc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := mustRead(t, golden); !bytes.Equal(doc.Bytes(), want) {
		t.Errorf("source heads differ from %s (run with -update if intended):\n%s", golden, doc.Bytes())
	}
}

var large = flag.Bool("large", false, "also generate and read back the 100,000-request benchmark run (about 2.8 GB, 2M spans, several GB of parser memory)")

// TestLargeRunParses reads every source of the benchmark-scale run back
// with the parsers (opt-in with -large).
func TestLargeRunParses(t *testing.T) {
	if !*large {
		t.Skip("run with -large")
	}
	v := generate(t, Config{Seed: 1, Requests: 100_000})
	v.checkAll(t)
	if len(v.spans.Spans) < 1_900_000 {
		t.Errorf("%d spans, want about two million", len(v.spans.Spans))
	}
}
