package join_test

import (
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
	"maps"
	"slices"
	"strings"
	"testing"
)

type assignment struct{ worker, basis string }

func TestWorkerAssociation(t *testing.T) {
	decodeSpans := []jointest.SpanSpec{
		{ID: "dadmit", Name: "worker.admission", Role: "decode", Start: 1, End: 2},
		{ID: "fstream", Name: "response.streaming", Start: 3, End: 4},
	}
	tests := []struct {
		name    string
		logs    func(t *testing.T) []join.WorkerLog
		workers []join.Worker
		want    map[string]assignment // span id → worker and basis
		bound   []string              // request workers
		audit   map[string]int64      // checked keys only
	}{{
		name: "an explicit process binding is definite",
		logs: func(t *testing.T) []join.WorkerLog {
			return []join.WorkerLog{jointest.WorkerLog(t, "decode-host_decode_w0.out",
				[]model.ProcessBinding{jointest.Binding(jointest.ServerID, "decode-host", "decode", "epoch-decode", 4)}, nil)}
		},
		want:  map[string]assignment{"dadmit": {"decode-0", join.BasisSpanBinding}, "fstream": {}},
		bound: []string{"decode-0"},
		audit: map[string]int64{"worker_binding_rows": 1},
	}, {
		name: "a binding for another process epoch does not match; the host/role basis is labeled",
		logs: func(t *testing.T) []join.WorkerLog {
			return []join.WorkerLog{jointest.WorkerLog(t, "decode-host_decode_w0.out",
				[]model.ProcessBinding{jointest.Binding(jointest.ServerID, "decode-host", "decode", "restarted", 4)}, nil)}
		},
		want:  map[string]assignment{"dadmit": {"decode-0", join.BasisHostRoleOnly}, "fstream": {}},
		bound: []string{"decode-0"},
	}, {
		name:    "a unique recorded host and role is the weaker, labeled basis",
		workers: []join.Worker{{ID: "decode-0", Host: "decode-host", Role: "decode"}},
		want:    map[string]assignment{"dadmit": {"decode-0", join.BasisHostRoleOnly}, "fstream": {}},
		bound:   []string{"decode-0"},
	}, {
		name: "two workers on one host and role leave the span unassigned",
		workers: []join.Worker{
			{ID: "decode-0", Host: "decode-host", Role: "decode"},
			{ID: "decode-1", Host: "decode-host", Role: "decode"},
		},
		want:  map[string]assignment{"dadmit": {}, "fstream": {}},
		audit: map[string]int64{"ambiguous_span_workers": 1},
	}, {
		name:    "a frontend span never falls back to a host match",
		workers: []join.Worker{{ID: "frontend", Host: "front", Role: "frontend"}, {ID: "x-0", Host: "front", Role: "frontend"}},
		want:    map[string]assignment{"dadmit": {}, "fstream": {}},
	}, {
		name: "a binding whose host or role differs from its file name is not a binding",
		logs: func(t *testing.T) []join.WorkerLog {
			return []join.WorkerLog{jointest.WorkerLog(t, "other-host_decode_w0.out", []model.ProcessBinding{
				jointest.Binding(jointest.ServerID, "decode-host", "decode", "epoch-decode", 1),
				jointest.Binding(jointest.ServerID, "other-host", "prefill", "epoch-decode", 2),
			}, nil)}
		},
		want:  map[string]assignment{"dadmit": {}, "fstream": {}},
		audit: map[string]int64{"mismatched_worker_bindings": 2, "worker_binding_rows": 0},
	}, {
		name: "bindings and engine maps of unbridged requests are counted",
		logs: func(t *testing.T) []join.WorkerLog {
			return []join.WorkerLog{jointest.WorkerLog(t, "decode-host_decode_w0.out",
				[]model.ProcessBinding{jointest.Binding(jointest.OtherUUID, "decode-host", "decode", "epoch-decode", 1)},
				[]model.EngineMap{jointest.EngineMap(jointest.OtherUUID, "7", 2)})}
		},
		want:  map[string]assignment{"dadmit": {"decode-0", join.BasisHostRoleOnly}, "fstream": {}},
		bound: []string{"decode-0"},
		audit: map[string]int64{"unjoined_worker_bindings": 1, "unjoined_engine_maps": 1},
	}, {
		// §12 item 14: a duplicated log claims the same request, host,
		// role and process for a second worker.
		name: "conflicting bindings stay evidence and are excluded from definite paths",
		logs: func(t *testing.T) []join.WorkerLog {
			b := func() []model.ProcessBinding {
				return []model.ProcessBinding{jointest.Binding(jointest.ServerID, "decode-host", "decode", "epoch-decode", 1)}
			}
			return []join.WorkerLog{jointest.WorkerLog(t, "decode-host_decode_w0.out", b(), nil), jointest.WorkerLog(t, "decode-host_decode_w1.out", b(), nil)}
		},
		want:  map[string]assignment{"dadmit": {}, "fstream": {}},
		audit: map[string]int64{"ambiguous_worker_bindings": 2, "ambiguous_span_workers": 1, "worker_binding_rows": 2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := join.Input{
				Bridges: join.NewBridges([]model.Bridge{jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 1)}),
				Spans:   jointest.MakeSpans(decodeSpans), Workers: tt.workers,
			}
			if tt.logs != nil {
				in.WorkerLogs = tt.logs(t)
			}
			j, err := join.Join([]model.ClientTiming{{ID: "a"}}, in)
			if err != nil {
				t.Fatal(err)
			}
			r := &j.Requests[0]
			got := map[string]assignment{}
			for _, sp := range r.Spans {
				got[sp.SpanID] = assignment{sp.Worker, sp.WorkerBasis}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("assignments = %v, want %v", got, tt.want)
			}
			if !slices.Equal(r.Workers, tt.bound) {
				t.Errorf("workers = %v, want %v", r.Workers, tt.bound)
			}
			for k, v := range tt.audit {
				if j.Audit[k] != v {
					t.Errorf("audit[%s] = %d, want %d (%v)", k, j.Audit[k], v, j.Audit)
				}
			}
		})
	}
}

// §12 item 14 on the fixture: a copy of the prefill log leaves prefill
// spans unassigned while decode spans keep their worker.
func TestDuplicatedPrefillLog(t *testing.T) {
	in := jointest.WriteRun(t)
	dup := in.WorkerLogs[1]
	if dup.Name.Worker != "prefill-0" {
		t.Fatalf("fixture order: %v", dup.Name)
	}
	dup.Name.Index, dup.Name.Worker = 1, "prefill-1"
	in.WorkerLogs = append(in.WorkerLogs, dup)
	j, err := join.Join(jointest.WriteRunClients(), in)
	if err != nil {
		t.Fatal(err)
	}
	r := &j.Requests[0]
	for _, sp := range r.Spans {
		switch sp.Role() {
		case "prefill":
			if sp.Worker != "" {
				t.Errorf("%s assigned to %s", sp.SpanID, sp.Worker)
			}
		case "decode":
			if sp.Worker != "decode-0" {
				t.Errorf("%s assigned to %q", sp.SpanID, sp.Worker)
			}
		}
	}
	if !slices.Equal(r.Workers, []string{"decode-0"}) {
		t.Errorf("workers = %v", r.Workers)
	}
	if j.Audit["ambiguous_worker_bindings"] != 2 || j.Audit["ambiguous_span_workers"] != 4 {
		t.Errorf("audit = %v", j.Audit)
	}
}

func TestEngineMapIdentity(t *testing.T) {
	tests := []struct {
		name      string
		specs     []jointest.SpanSpec
		maps      []model.EngineMap
		bridges   []model.Bridge
		process   []*string
		ambiguous []bool
		audit     int64 // ambiguous_engine_ids
	}{{
		name:      "the process comes from the request's spans on the same host and role",
		specs:     []jointest.SpanSpec{{ID: "a", Name: "worker.admission", Role: "decode", Start: 1, End: 2}},
		maps:      []model.EngineMap{jointest.EngineMap(jointest.ServerID, "7", 1)},
		process:   []*string{jointest.Ptr("epoch-decode")},
		ambiguous: []bool{false},
	}, {
		name: "two recorded epochs leave the process unknown",
		specs: []jointest.SpanSpec{
			{ID: "a", Name: "worker.admission", Role: "decode", Start: 1, End: 2},
			{ID: "b", Name: "request.dispatch", Role: "decode", Start: 2, End: 3, Extra: []string{"dynamo.process.epoch", "restarted"}},
		},
		maps:      []model.EngineMap{jointest.EngineMap(jointest.ServerID, "7", 1)},
		process:   []*string{nil},
		ambiguous: []bool{true},
	}, {
		name:  "one process mapping a client id to two requests is ambiguous",
		specs: []jointest.SpanSpec{{ID: "a", Name: "worker.admission", Role: "decode", Start: 1, End: 2}, {ID: "b", Name: "worker.admission", Role: "decode", Start: 1, End: 2, Trace: "t2", Request: jointest.Ptr(jointest.OtherUUID)}},
		bridges: []model.Bridge{
			jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 1), jointest.Bridge("b", jointest.OtherUUID, "f_frontend_0.out", 2),
		},
		maps:      []model.EngineMap{jointest.EngineMap(jointest.ServerID, "7", 1), jointest.EngineMap(jointest.OtherUUID, "7", 2)},
		process:   []*string{jointest.Ptr("epoch-decode"), jointest.Ptr("epoch-decode")},
		ambiguous: []bool{true, true},
		audit:     1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bridges := tt.bridges
			if bridges == nil {
				bridges = []model.Bridge{jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 1)}
			}
			in := join.Input{Bridges: join.NewBridges(bridges), Spans: jointest.MakeSpans(tt.specs),
				WorkerLogs: []join.WorkerLog{jointest.WorkerLog(t, "decode-host_decode_w0.out", nil, tt.maps)}}
			j, err := join.Join([]model.ClientTiming{{ID: "a"}, {ID: "b"}}, in)
			if err != nil {
				t.Fatal(err)
			}
			var entries []model.EngineEntry
			for _, r := range j.Requests {
				entries = append(entries, r.Engine...)
			}
			if len(entries) != len(tt.process) {
				t.Fatalf("entries = %+v", entries)
			}
			for i, e := range entries {
				if !equalPtr(e.Process, tt.process[i]) || e.IdentityAmbiguous != tt.ambiguous[i] {
					t.Errorf("entry %d: process %v ambiguous %v", i, e.Process, e.IdentityAmbiguous)
				}
			}
			if j.Audit["ambiguous_engine_ids"] != tt.audit {
				t.Errorf("ambiguous_engine_ids = %d", j.Audit["ambiguous_engine_ids"])
			}
		})
	}
}

// Request ids are compared as recorded: a binding naming a bridged UUID
// in uppercase binds the request bridged by that text, not the one
// bridged by its lowercase text, and its evidence keeps the text.
func TestBindingRequestIDsComparedAsRecorded(t *testing.T) {
	const lower = "abcdef01-2345-4678-89ab-cdef01234567"
	upper := strings.ToUpper(lower)
	in := join.Input{
		Bridges: join.NewBridges([]model.Bridge{jointest.Bridge("up", upper, "f_frontend_0.out", 1), jointest.Bridge("low", lower, "f_frontend_0.out", 2)}),
		WorkerLogs: []join.WorkerLog{jointest.WorkerLog(t, "decode-host_decode_w0.out", []model.ProcessBinding{
			jointest.Binding(upper, "decode-host", "decode", "epoch-up", 4),
			jointest.Binding(lower, "decode-host", "decode", "epoch-low", 5),
		}, nil)},
	}
	j, err := join.Join([]model.ClientTiming{{ID: "up"}, {ID: "low"}}, in)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ id, process string }{{upper, "epoch-up"}, {lower, "epoch-low"}} {
		b := j.Requests[i].Bindings
		if len(b) != 1 || b[0].ServerID != want.id || *b[0].Process != want.process || b[0].Ref.Line != int64(4+i) {
			t.Errorf("request %d bindings = %+v, want %s of %s", i, b, want.process, want.id)
		}
	}
}
