package lifecycle

import (
	"maps"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/dynamolog"
)

type assignment struct{ worker, basis string }

func TestWorkerAssociation(t *testing.T) {
	decodeSpans := []spanSpec{
		{id: "dadmit", name: "worker.admission", role: "decode", start: 1, end: 2},
		{id: "fstream", name: "response.streaming", start: 3, end: 4},
	}
	tests := []struct {
		name    string
		logs    func(t *testing.T) []WorkerLog
		workers []Worker
		want    map[string]assignment // span id → worker and basis
		bound   []string              // request workers
		audit   map[string]int64      // checked keys only
	}{{
		name: "an explicit process binding is definite",
		logs: func(t *testing.T) []WorkerLog {
			return []WorkerLog{workerLog(t, "decode-host_decode_w0.out",
				[]dynamolog.Binding{binding(serverID, "decode-host", "decode", "epoch-decode", 4)}, nil)}
		},
		want:  map[string]assignment{"dadmit": {"decode-0", BasisSpanBinding}, "fstream": {}},
		bound: []string{"decode-0"},
		audit: map[string]int64{"worker_binding_rows": 1},
	}, {
		name: "a binding for another process epoch does not match; the host/role basis is labeled",
		logs: func(t *testing.T) []WorkerLog {
			return []WorkerLog{workerLog(t, "decode-host_decode_w0.out",
				[]dynamolog.Binding{binding(serverID, "decode-host", "decode", "restarted", 4)}, nil)}
		},
		want:  map[string]assignment{"dadmit": {"decode-0", BasisHostRoleOnly}, "fstream": {}},
		bound: []string{"decode-0"},
	}, {
		name:    "a unique recorded host and role is the weaker, labeled basis",
		workers: []Worker{{ID: "decode-0", Host: "decode-host", Role: "decode"}},
		want:    map[string]assignment{"dadmit": {"decode-0", BasisHostRoleOnly}, "fstream": {}},
		bound:   []string{"decode-0"},
	}, {
		name: "two workers on one host and role leave the span unassigned",
		workers: []Worker{
			{ID: "decode-0", Host: "decode-host", Role: "decode"},
			{ID: "decode-1", Host: "decode-host", Role: "decode"},
		},
		want:  map[string]assignment{"dadmit": {}, "fstream": {}},
		audit: map[string]int64{"ambiguous_span_workers": 1},
	}, {
		name:    "a frontend span never falls back to a host match",
		workers: []Worker{{ID: "frontend", Host: "front", Role: "frontend"}, {ID: "x-0", Host: "front", Role: "frontend"}},
		want:    map[string]assignment{"dadmit": {}, "fstream": {}},
	}, {
		name: "a binding whose host or role differs from its file name is not a binding",
		logs: func(t *testing.T) []WorkerLog {
			return []WorkerLog{workerLog(t, "other-host_decode_w0.out", []dynamolog.Binding{
				binding(serverID, "decode-host", "decode", "epoch-decode", 1),
				binding(serverID, "other-host", "prefill", "epoch-decode", 2),
			}, nil)}
		},
		want:  map[string]assignment{"dadmit": {}, "fstream": {}},
		audit: map[string]int64{"mismatched_worker_bindings": 2, "worker_binding_rows": 0},
	}, {
		name: "bindings and engine maps of unbridged requests are counted",
		logs: func(t *testing.T) []WorkerLog {
			return []WorkerLog{workerLog(t, "decode-host_decode_w0.out",
				[]dynamolog.Binding{binding(otherUUID, "decode-host", "decode", "epoch-decode", 1)},
				[]dynamolog.EngineMap{engineMap(otherUUID, "7", 2)})}
		},
		want:  map[string]assignment{"dadmit": {"decode-0", BasisHostRoleOnly}, "fstream": {}},
		bound: []string{"decode-0"},
		audit: map[string]int64{"unjoined_worker_bindings": 1, "unjoined_engine_maps": 1},
	}, {
		// §12 item 14: a duplicated log claims the same request, host,
		// role and process for a second worker.
		name: "conflicting bindings stay evidence and are excluded from definite paths",
		logs: func(t *testing.T) []WorkerLog {
			b := func() []dynamolog.Binding {
				return []dynamolog.Binding{binding(serverID, "decode-host", "decode", "epoch-decode", 1)}
			}
			return []WorkerLog{workerLog(t, "decode-host_decode_w0.out", b(), nil), workerLog(t, "decode-host_decode_w1.out", b(), nil)}
		},
		want:  map[string]assignment{"dadmit": {}, "fstream": {}},
		audit: map[string]int64{"ambiguous_worker_bindings": 2, "ambiguous_span_workers": 1, "worker_binding_rows": 2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{
				Bridges: []dynamolog.Bridge{bridge("a", serverID, "f_frontend_0.out", 1)},
				Spans:   makeSpans(decodeSpans), Workers: tt.workers,
			}
			if tt.logs != nil {
				in.WorkerLogs = tt.logs(t)
			}
			j, err := Join([]ClientRequest{{ID: "a"}}, in)
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
	in := writeRun(t)
	dup := in.WorkerLogs[1]
	if dup.Name.Worker != "prefill-0" {
		t.Fatalf("fixture order: %v", dup.Name)
	}
	dup.Name.Index, dup.Name.Worker = 1, "prefill-1"
	in.WorkerLogs = append(in.WorkerLogs, dup)
	j, err := Join(writeRunClients(), in)
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
		specs     []spanSpec
		maps      []dynamolog.EngineMap
		bridges   []dynamolog.Bridge
		process   []*string
		ambiguous []bool
		audit     int64 // ambiguous_engine_ids
	}{{
		name:      "the process comes from the request's spans on the same host and role",
		specs:     []spanSpec{{id: "a", name: "worker.admission", role: "decode", start: 1, end: 2}},
		maps:      []dynamolog.EngineMap{engineMap(serverID, "7", 1)},
		process:   []*string{ptr("epoch-decode")},
		ambiguous: []bool{false},
	}, {
		name: "two recorded epochs leave the process unknown",
		specs: []spanSpec{
			{id: "a", name: "worker.admission", role: "decode", start: 1, end: 2},
			{id: "b", name: "request.dispatch", role: "decode", start: 2, end: 3, extra: []string{"dynamo.process.epoch", "restarted"}},
		},
		maps:      []dynamolog.EngineMap{engineMap(serverID, "7", 1)},
		process:   []*string{nil},
		ambiguous: []bool{true},
	}, {
		name:  "one process mapping a client id to two requests is ambiguous",
		specs: []spanSpec{{id: "a", name: "worker.admission", role: "decode", start: 1, end: 2}, {id: "b", name: "worker.admission", role: "decode", start: 1, end: 2, trace: "t2", request: ptr(otherUUID)}},
		bridges: []dynamolog.Bridge{
			bridge("a", serverID, "f_frontend_0.out", 1), bridge("b", otherUUID, "f_frontend_0.out", 2),
		},
		maps:      []dynamolog.EngineMap{engineMap(serverID, "7", 1), engineMap(otherUUID, "7", 2)},
		process:   []*string{ptr("epoch-decode"), ptr("epoch-decode")},
		ambiguous: []bool{true, true},
		audit:     1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bridges := tt.bridges
			if bridges == nil {
				bridges = []dynamolog.Bridge{bridge("a", serverID, "f_frontend_0.out", 1)}
			}
			in := Input{Bridges: bridges, Spans: makeSpans(tt.specs),
				WorkerLogs: []WorkerLog{workerLog(t, "decode-host_decode_w0.out", nil, tt.maps)}}
			j, err := Join([]ClientRequest{{ID: "a"}, {ID: "b"}}, in)
			if err != nil {
				t.Fatal(err)
			}
			var entries []EngineEntry
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
