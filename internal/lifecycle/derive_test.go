package lifecycle_test

import (
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"math"
	"slices"
	"strings"
	"testing"
)

func deriveWriteRun(t testing.TB) lifecycle.Lifecycle {
	t.Helper()
	j := jointest.JoinWriteRun(t)
	return lifecycle.Derive(&j.Requests[0])
}

// §12 item 1: the full example partitions 8 s exactly, with TTFT 3 s.
func TestDeriveWriteRun(t *testing.T) {
	l := deriveWriteRun(t)
	if !l.Available || len(l.Issues) != 0 {
		t.Fatalf("available %v, issues %v", l.Available, l.Issues)
	}
	var labels []string
	for _, s := range l.Stages {
		labels = append(labels, s.Label)
	}
	want := []string{
		"Preprocessing complete", "Prefill route selected", "Prefill transport ready",
		"Prefill response stream created", "Prefill response handling complete", "Decode route selected",
		"Decode transport ready", "Decode response stream created", "First frontend SSE ready",
		lifecycle.LabelFirstToken, lifecycle.LabelClientComplete,
	}
	if !slices.Equal(labels, want) {
		t.Errorf("stages:\n got %q\nwant %q", labels, want)
	}
	checkPartition(t, &jointest.WriteRunClients()[0], l)
	if total := sumSeconds(l.Stages); math.Abs(total-8) > 1e-9 {
		t.Errorf("stages sum to %v s", total)
	}
	if ttft := sumSeconds(l.Stages[:len(l.Stages)-1]); math.Abs(ttft-3) > 1e-9 {
		t.Errorf("stages before completion sum to %v s", ttft)
	}
	if len(l.Rows[len(l.Rows)-1]) != len(l.Stages) {
		t.Errorf("last row %v", l.Rows[len(l.Rows)-1])
	}
	acts := map[string]*lifecycle.Activity{}
	for i := range l.Activities {
		acts[l.Activities[i].Span.SpanID] = &l.Activities[i]
	}
	if len(acts) != 12 {
		t.Errorf("%d activities", len(acts))
	}
	for id, kind := range map[string]string{"dop": "envelope", "fstream": "concurrent", "padmit": "activity"} {
		if acts[id].Kind != kind {
			t.Errorf("%s kind %s", id, acts[id].Kind)
		}
	}
	for _, id := range []string{"ddispatch", "dpump"} {
		if p := acts[id].ParentActivity; p == nil || *p != "dop" || acts[id].Depth != 1 {
			t.Errorf("%s parent %v depth %d", id, p, acts[id].Depth)
		}
	}
	if acts["fstream"].Span.StartNS >= acts["dop"].Span.EndNS {
		t.Error("frontend stream does not overlap the decode operation")
	}
	for id, label := range map[string]string{"pselect": "Prefill selection", "dselect": "Decode selection"} {
		a := acts[id]
		if a.Label != label || a.Description != join.RoutingBasis || a.Span.Routing == nil {
			t.Errorf("%s: %q %q", id, a.Label, a.Description)
		}
	}
	for _, m := range l.Milestones {
		if strings.HasSuffix(m.Label, "route selected") && m.PhaseBasis != join.RoutingBasis {
			t.Errorf("%s without its inferred basis", m.Label)
		}
	}
}

// §12 item 8 and the other doubts: each keeps the activities and the
// client split, reports its issue, and discards the server milestones.
func TestDeriveUncertain(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(specs []jointest.SpanSpec, r *model.RequestEvidence) []jointest.SpanSpec
		issue  string
		stages int
	}{{
		name: "skew: a dispatch recorded ending before it starts",
		mutate: func(specs []jointest.SpanSpec, _ *model.RequestEvidence) []jointest.SpanSpec {
			specs[11].End = 1000
			return specs
		},
		issue: lifecycle.IssueInvertedActivity, stages: 2,
	}, {
		name: "retry: a second server id",
		mutate: func(specs []jointest.SpanSpec, r *model.RequestEvidence) []jointest.SpanSpec {
			r.ServerIDs = append(r.ServerIDs, jointest.OtherUUID)
			return specs
		},
		issue: lifecycle.IssueMultipleAttempts, stages: 2,
	}, {
		name: "duplicate milestone: a second preprocessing span",
		mutate: func(specs []jointest.SpanSpec, _ *model.RequestEvidence) []jointest.SpanSpec {
			again := specs[0]
			again.ID = "again"
			return append(specs, again)
		},
		issue: "Repeated request.preprocessing: cannot infer one sequential attempt", stages: 2,
	}, {
		name: "duplicate milestone of one role",
		mutate: func(specs []jointest.SpanSpec, _ *model.RequestEvidence) []jointest.SpanSpec {
			again := specs[9]
			again.ID, again.Trace = "again", "another-trace"
			return append(specs, again)
		},
		issue: "Repeated decode worker.admission: cannot infer one sequential attempt", stages: 2,
	}, {
		name: "two selections associated with the prefill phase",
		mutate: func(specs []jointest.SpanSpec, _ *model.RequestEvidence) []jointest.SpanSpec {
			specs[8].Extra = []string{"phase", "Prefill"}
			return specs
		},
		issue: "Repeated prefill selection: cannot infer one sequential attempt", stages: 2,
	}, {
		name: "invalid TTFT: first token after the request ends",
		mutate: func(specs []jointest.SpanSpec, r *model.RequestEvidence) []jointest.SpanSpec {
			r.Client.FirstNS = jointest.Ptr(jointest.MS(99_000))
			return specs
		},
		issue: lifecycle.IssueFirstOutside, stages: 1,
	}, {
		name: "invalid TTFT: first token before the request starts",
		mutate: func(specs []jointest.SpanSpec, r *model.RequestEvidence) []jointest.SpanSpec {
			r.Client.FirstNS = jointest.Ptr(jointest.MS(-1))
			return specs
		},
		issue: lifecycle.IssueFirstOutside, stages: 1,
	}, {
		name: "missing first token",
		mutate: func(specs []jointest.SpanSpec, r *model.RequestEvidence) []jointest.SpanSpec {
			r.Client.FirstNS = nil
			return specs
		},
		issue: lifecycle.IssueNoFirstToken, stages: 1,
	}, {
		name: "a milestone after the client's first token",
		mutate: func(specs []jointest.SpanSpec, r *model.RequestEvidence) []jointest.SpanSpec {
			r.Client.FirstNS = jointest.Ptr(jointest.MS(2500))
			return specs
		},
		issue: lifecycle.IssueOutsideTTFT, stages: 2,
	}, {
		name: "a milestone before the client request starts",
		mutate: func(specs []jointest.SpanSpec, _ *model.RequestEvidence) []jointest.SpanSpec {
			specs[0].Start, specs[0].End = -50, -10
			return specs
		},
		issue: lifecycle.IssueOutsideTTFT, stages: 2,
	}, {
		name: "a child outside its parent",
		mutate: func(specs []jointest.SpanSpec, _ *model.RequestEvidence) []jointest.SpanSpec {
			specs[12].End = 7950
			return specs
		},
		issue: lifecycle.IssueChildOutside, stages: 2,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &model.RequestEvidence{Client: jointest.WriteRunClients()[0], ServerIDs: []string{jointest.ServerID}}
			specs := tt.mutate(jointest.WriteRunSpecs(), r)
			j, err := join.Join([]model.ClientTiming{r.Client}, join.Input{
				Bridges: join.NewBridges([]model.Bridge{jointest.Bridge(jointest.ClientID, jointest.ServerID, "front_frontend_0.out", 1)}),
				Spans:   jointest.MakeSpans(specs),
			})
			if err != nil {
				t.Fatal(err)
			}
			r.Spans = j.Requests[0].Spans
			if tt.issue == lifecycle.IssueInvertedActivity { // Join drops it; lifecycle.Derive must still cope
				bad := jointest.MakeSpan(specs[11], 11)
				r.Spans = append(r.Spans, model.JoinedSpan{Span: &bad, Join: model.JoinRequestID})
			}
			l := lifecycle.Derive(r)
			if !slices.Contains(l.Issues, tt.issue) {
				t.Errorf("issues %q lack %q", l.Issues, tt.issue)
			}
			if len(l.Stages) != tt.stages || len(l.Activities) < 12 {
				t.Errorf("%d stages, %d activities", len(l.Stages), len(l.Activities))
			}
			checkPartition(t, &r.Client, l)
		})
	}
}

// checkPartition asserts the stage invariants: contiguous from the
// client start to the client end, none negative, rows cumulative, and the
// stages through the first-token one summing to TTFT, all in exact ns.
func checkPartition(t testing.TB, c *model.ClientTiming, l lifecycle.Lifecycle) {
	t.Helper()
	if len(l.Stages) == 0 || len(l.Rows) != len(l.Stages) || len(l.Milestones) != len(l.Stages) {
		t.Fatalf("%d stages, %d rows, %d milestones", len(l.Stages), len(l.Rows), len(l.Milestones))
	}
	at := c.StartNS
	var sum int64
	for i, s := range l.Stages {
		if s.StartNS != at || s.EndNS < s.StartNS {
			t.Fatalf("stage %d [%d, %d] after %d", i, s.StartNS, s.EndNS, at)
		}
		if len(l.Rows[i]) != i+1 || l.Rows[i][i] != s.ID || s.Row != i {
			t.Fatalf("row %d = %v", i, l.Rows[i])
		}
		sum += s.EndNS - s.StartNS
		if s.Label == lifecycle.LabelFirstToken && sum != *c.FirstNS-c.StartNS {
			t.Fatalf("stages through the first token sum to %d ns, TTFT is %d", sum, *c.FirstNS-c.StartNS)
		}
		at = s.EndNS
	}
	if sum != c.EndNS-c.StartNS || l.Stages[len(l.Stages)-1].Label != lifecycle.LabelClientComplete {
		t.Fatalf("stages sum to %d ns of %d, last %q", sum, c.EndNS-c.StartNS, l.Stages[len(l.Stages)-1].Label)
	}
}

func sumSeconds(stages []lifecycle.Stage) float64 {
	var total float64
	for _, s := range stages {
		total += float64(s.EndNS-s.StartNS) / 1e9
	}
	return total
}

func BenchmarkDerive(b *testing.B) {
	j := jointest.JoinWriteRun(b)
	r := &j.Requests[0]
	for b.Loop() {
		if l := lifecycle.Derive(r); !l.Available {
			b.Fatal("unavailable")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(r.Spans)), "ns/span")
}
