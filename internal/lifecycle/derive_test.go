package lifecycle

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/golden"
)

func deriveWriteRun(t testing.TB) Lifecycle {
	t.Helper()
	j := joinWriteRun(t)
	return Derive(&j.Requests[0], writeRunFrame())
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
		LabelFirstToken, LabelClientComplete,
	}
	if !slices.Equal(labels, want) {
		t.Errorf("stages:\n got %q\nwant %q", labels, want)
	}
	checkPartition(t, &writeRunClients()[0], l)
	if total := sumSeconds(l.Stages); math.Abs(total-8) > 1e-9 {
		t.Errorf("stages sum to %v s", total)
	}
	if ttft := sumSeconds(l.Stages[:len(l.Stages)-1]); math.Abs(ttft-3) > 1e-9 {
		t.Errorf("stages before completion sum to %v s", ttft)
	}
	if len(l.Rows[len(l.Rows)-1]) != len(l.Stages) {
		t.Errorf("last row %v", l.Rows[len(l.Rows)-1])
	}
	acts := map[string]*Activity{}
	for i := range l.Activities {
		acts[l.Activities[i].ID] = &l.Activities[i]
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
	if acts["fstream"].Start >= acts["dop"].End {
		t.Error("frontend stream does not overlap the decode operation")
	}
	for id, label := range map[string]string{"pselect": "Prefill selection", "dselect": "Decode selection"} {
		a := acts[id]
		if a.Label != label || a.Description != routingBasis || a.RoutingContext == nil {
			t.Errorf("%s: %q %q", id, a.Label, a.Description)
		}
	}
	for _, m := range l.Milestones {
		if strings.HasSuffix(m.Label, "route selected") && m.PhaseBasis != routingBasis {
			t.Errorf("%s without its inferred basis", m.Label)
		}
	}
}

func TestDeriveGolden(t *testing.T) {
	got, err := json.MarshalIndent(deriveWriteRun(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/write_run.lifecycle.golden", append(got, '\n'))
}

func TestDeriveUnavailable(t *testing.T) {
	j := joinWriteRun(t)
	got, err := json.Marshal(Derive(&j.Requests[1], writeRunFrame()))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"request":"client-only","available":false,"layout":"cumulative-milestones","stages":[],` +
		`"activities":[],"milestones":[],"issues":[],"rows":[],"timing":""}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// §12 item 8 and the other doubts: each keeps the activities and the
// client split, reports its issue, and discards the server milestones.
func TestDeriveUncertain(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(specs []spanSpec, r *Request) []spanSpec
		issue  string
		stages int
	}{{
		name: "skew: a dispatch recorded ending before it starts",
		mutate: func(specs []spanSpec, _ *Request) []spanSpec {
			specs[11].end = 1000
			return specs
		},
		issue: IssueInvertedActivity, stages: 2,
	}, {
		name: "retry: a second server id",
		mutate: func(specs []spanSpec, r *Request) []spanSpec {
			r.ServerIDs = append(r.ServerIDs, otherUUID)
			return specs
		},
		issue: IssueMultipleAttempts, stages: 2,
	}, {
		name: "duplicate milestone: a second preprocessing span",
		mutate: func(specs []spanSpec, _ *Request) []spanSpec {
			again := specs[0]
			again.id = "again"
			return append(specs, again)
		},
		issue: "Repeated request.preprocessing: cannot infer one sequential attempt", stages: 2,
	}, {
		name: "duplicate milestone of one role",
		mutate: func(specs []spanSpec, _ *Request) []spanSpec {
			again := specs[9]
			again.id, again.trace = "again", "another-trace"
			return append(specs, again)
		},
		issue: "Repeated decode worker.admission: cannot infer one sequential attempt", stages: 2,
	}, {
		name: "two selections associated with the prefill phase",
		mutate: func(specs []spanSpec, _ *Request) []spanSpec {
			specs[8].extra = []string{"phase", "Prefill"}
			return specs
		},
		issue: "Repeated prefill selection: cannot infer one sequential attempt", stages: 2,
	}, {
		name: "invalid TTFT: first token after the request ends",
		mutate: func(specs []spanSpec, r *Request) []spanSpec {
			r.Client.FirstNS = ptr(ms(99_000))
			return specs
		},
		issue: IssueFirstOutside, stages: 1,
	}, {
		name: "invalid TTFT: first token before the request starts",
		mutate: func(specs []spanSpec, r *Request) []spanSpec {
			r.Client.FirstNS = ptr(ms(-1))
			return specs
		},
		issue: IssueFirstOutside, stages: 1,
	}, {
		name: "missing first token",
		mutate: func(specs []spanSpec, r *Request) []spanSpec {
			r.Client.FirstNS = nil
			return specs
		},
		issue: IssueNoFirstToken, stages: 1,
	}, {
		name: "a milestone after the client's first token",
		mutate: func(specs []spanSpec, r *Request) []spanSpec {
			r.Client.FirstNS = ptr(ms(2500))
			return specs
		},
		issue: IssueOutsideTTFT, stages: 2,
	}, {
		name: "a milestone before the client request starts",
		mutate: func(specs []spanSpec, _ *Request) []spanSpec {
			specs[0].start, specs[0].end = -50, -10
			return specs
		},
		issue: IssueOutsideTTFT, stages: 2,
	}, {
		name: "a child outside its parent",
		mutate: func(specs []spanSpec, _ *Request) []spanSpec {
			specs[12].end = 7950
			return specs
		},
		issue: IssueChildOutside, stages: 2,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Request{Client: writeRunClients()[0], ServerIDs: []string{serverID}}
			specs := tt.mutate(writeRunSpecs(), r)
			j, err := Join([]ClientRequest{r.Client}, Input{
				Bridges: []dynamolog.Bridge{bridge(clientID, serverID, "front_frontend_0.out", 1)},
				Spans:   makeSpans(specs),
			})
			if err != nil {
				t.Fatal(err)
			}
			r.Spans = j.Requests[0].Spans
			if tt.issue == IssueInvertedActivity { // Join drops it; Derive must still cope
				bad := makeSpan(specs[11], 11)
				r.Spans = append(r.Spans, Span{Span: &bad, Join: JoinRequestID})
			}
			l := Derive(r, writeRunFrame())
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
func checkPartition(t testing.TB, c *ClientRequest, l Lifecycle) {
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
		if s.Label == LabelFirstToken && sum != *c.FirstNS-c.StartNS {
			t.Fatalf("stages through the first token sum to %d ns, TTFT is %d", sum, *c.FirstNS-c.StartNS)
		}
		at = s.EndNS
	}
	if sum != c.EndNS-c.StartNS || l.Stages[len(l.Stages)-1].Label != LabelClientComplete {
		t.Fatalf("stages sum to %d ns of %d, last %q", sum, c.EndNS-c.StartNS, l.Stages[len(l.Stages)-1].Label)
	}
}

func sumSeconds(stages []Stage) float64 {
	var total float64
	for _, s := range stages {
		total += s.End - s.Start
	}
	return total
}
