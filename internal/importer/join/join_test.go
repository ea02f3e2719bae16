package join_test

import (
	"errors"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/otlp"
)

// §12 item 1: the fixture's request joins its bridge, all 14 spans, both
// Engine ID maps and both workers; the client-only request joins nothing.
func TestJoinWriteRun(t *testing.T) {
	j := jointest.JoinWriteRun(t)
	r := &j.Requests[0]
	if !slices.Equal(r.ServerIDs, []string{jointest.ServerID}) {
		t.Errorf("server ids = %v", r.ServerIDs)
	}
	if want := (model.LineRef{Path: "front_frontend_0.out", Line: 1}); len(r.BridgeEvidence) != 1 || r.BridgeEvidence[0] != want {
		t.Errorf("bridge evidence = %v", r.BridgeEvidence)
	}
	if !slices.Equal(r.Workers, []string{"decode-0", "prefill-0"}) {
		t.Errorf("workers = %v", r.Workers)
	}
	processes := map[string]bool{}
	for _, e := range r.Engine {
		processes[deref(e.Process)] = true
		if e.IdentityAmbiguous {
			t.Errorf("engine entry %+v is ambiguous", e)
		}
		if e.ObservedAtNS == nil || *e.ObservedAtNS != 1789642713230000000 {
			t.Errorf("observed at = %v", e.ObservedAtNS)
		}
	}
	if !maps.Equal(processes, map[string]bool{"epoch-prefill": true, "epoch-decode": true}) {
		t.Errorf("engine processes = %v", processes)
	}
	for _, b := range r.Bindings {
		if b.Basis != join.BasisEngineMap || b.Ambiguous {
			t.Errorf("binding %+v", b)
		}
	}
	for id, want := range map[string]string{"pop": "prefill-0", "dpump": "decode-0", "fstream": "", "pselect": ""} {
		sp := jointest.SpanByID(r, id)
		if sp.Worker != want || (want != "" && sp.WorkerBasis != join.BasisSpanBinding) || sp.Join != model.JoinRequestID {
			t.Errorf("%s: worker %q (%s), join %q", id, sp.Worker, sp.WorkerBasis, sp.Join)
		}
	}
	for id, phase := range map[string]string{"pselect": "Prefill", "dselect": "Decode"} {
		if rc := jointest.SpanByID(r, id).Routing; rc == nil || rc.Phase != phase || rc.Basis != join.RoutingBasis {
			t.Errorf("%s routing = %+v", id, rc)
		}
	}
	if other := j.Requests[1]; len(other.Spans)+len(other.ServerIDs)+len(other.Engine)+len(other.Bindings) != 0 {
		t.Errorf("client-only request joined evidence: %+v", other)
	}
	want := map[string]int64{
		"clients_with_server_identity": 1, "joined_spans": 14, "associated_router_selections": 2,
		"engine_map_rows": 2, "clients_with_both_engine_maps": 1, "worker_binding_rows": 2,
	}
	if !maps.Equal(j.Audit, want) {
		t.Errorf("audit = %v, want %v", j.Audit, want)
	}
}

func TestBridgeRules(t *testing.T) {
	clients := []model.ClientTiming{{ID: "a"}, {ID: "b"}}
	tests := []struct {
		name      string
		bridges   []model.Bridge
		wantErr   string
		serverIDs map[string][]string
		audit     map[string]int64
	}{{
		name:      "explicit header maps a client to its UUID",
		bridges:   []model.Bridge{jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 3)},
		serverIDs: map[string][]string{"a": {jointest.ServerID}},
		audit:     map[string]int64{"clients_with_server_identity": 1},
	}, {
		name:      "a bridge naming an unknown client is ignored and counted",
		bridges:   []model.Bridge{jointest.Bridge("warmup", jointest.ServerID, "f_frontend_0.out", 1)},
		serverIDs: map[string][]string{},
		audit:     map[string]int64{"unknown_client_bridges": 1},
	}, {
		name: "a UUID bridged from two known clients is an error",
		bridges: []model.Bridge{
			jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 3),
			jointest.Bridge("b", jointest.ServerID, "g_frontend_0.out", 7),
		},
		wantErr: `g_frontend_0.out:7: ambiguous client/server bridge: Dynamo request ` + jointest.ServerID +
			` is bridged from client "b" and from client "a" at f_frontend_0.out:3`,
	}, {
		name: "a UUID bridged from an unknown and a known client is not ambiguous",
		bridges: []model.Bridge{
			jointest.Bridge("warmup", jointest.ServerID, "f_frontend_0.out", 1),
			jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 3),
		},
		serverIDs: map[string][]string{"a": {jointest.ServerID}},
		audit:     map[string]int64{"unknown_client_bridges": 1, "clients_with_server_identity": 1},
	}, {
		name: "one client bridged to two UUIDs keeps both, in order",
		bridges: []model.Bridge{
			jointest.Bridge("a", jointest.OtherUUID, "f_frontend_0.out", 3),
			jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 9),
		},
		serverIDs: map[string][]string{"a": {jointest.OtherUUID, jointest.ServerID}},
		audit:     map[string]int64{"clients_with_server_identity": 1, "multiple_server_identities": 1},
	}, {
		name: "the same pair in two frontend logs is one identity",
		bridges: []model.Bridge{
			jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 3),
			jointest.Bridge("a", jointest.ServerID, "g_frontend_1.out", 4),
		},
		serverIDs: map[string][]string{"a": {jointest.ServerID}},
		audit:     map[string]int64{"clients_with_server_identity": 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := join.Join(clients, join.Input{Bridges: join.NewBridges(tt.bridges)})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, join.ErrAmbiguousBridge) {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range j.Requests {
				if !slices.Equal(r.ServerIDs, tt.serverIDs[r.Client.ID]) {
					t.Errorf("%s: server ids %v, want %v", r.Client.ID, r.ServerIDs, tt.serverIDs[r.Client.ID])
				}
				if len(r.BridgeEvidence) != len(r.ServerIDs) {
					t.Errorf("%s: %d bridge evidence for %d ids", r.Client.ID, len(r.BridgeEvidence), len(r.ServerIDs))
				}
				if multiple := len(r.ServerIDs) > 1; multiple != slices.Contains(r.Issues, join.MultipleServerIDsIssue) {
					t.Errorf("%s: issues %v", r.Client.ID, r.Issues)
				}
			}
			if !maps.Equal(j.Audit, tt.audit) {
				t.Errorf("audit = %v, want %v", j.Audit, tt.audit)
			}
		})
	}
}

func TestDuplicateClientIDs(t *testing.T) {
	_, err := join.Join([]model.ClientTiming{{ID: "a"}, {ID: "a"}}, join.Input{})
	if err == nil || !strings.Contains(err.Error(), `duplicate client request id "a"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestSpanJoinRules(t *testing.T) {
	none, other := jointest.Ptr(""), jointest.Ptr(jointest.OtherUUID)
	clients := []model.ClientTiming{{ID: "a"}, {ID: "b"}}
	bridges := []model.Bridge{jointest.Bridge("a", jointest.ServerID, "f_frontend_0.out", 1)}
	tests := []struct {
		name    string
		specs   []jointest.SpanSpec
		window  *join.Window
		bridges []model.Bridge
		joins   map[string]string // span id → join kind; absent: not joined
		server  []string          // unjoined spans kept as server spans
		audit   map[string]int64
	}{{
		name:  "a bridged request id joins",
		specs: []jointest.SpanSpec{{ID: "s", Name: "request.preprocessing", Start: 1, End: 2}},
		joins: map[string]string{"s": model.JoinRequestID},
		audit: map[string]int64{"joined_spans": 1},
	}, {
		name: "a span without a request id joins through its linked trace",
		specs: []jointest.SpanSpec{
			{ID: "s", Name: "request.preprocessing", Start: 1, End: 2},
			{ID: "t", Name: "response.streaming", Start: 3, End: 4, Request: none},
		},
		joins: map[string]string{"s": model.JoinRequestID, "t": model.JoinTraceID},
		audit: map[string]int64{"joined_spans": 2},
	}, {
		name: "a span naming an unbridged request never joins by trace",
		specs: []jointest.SpanSpec{
			{ID: "s", Name: "request.preprocessing", Start: 1, End: 2},
			{ID: "t", Name: "response.streaming", Start: 3, End: 4, Request: other},
		},
		joins:  map[string]string{"s": model.JoinRequestID},
		server: []string{"t"},
		audit:  map[string]int64{"joined_spans": 1, "unjoined_spans": 1},
	}, {
		name:    "a trace linked to two requests joins nothing by trace",
		bridges: append(slices.Clone(bridges), jointest.Bridge("b", jointest.OtherUUID, "f_frontend_0.out", 2)),
		specs: []jointest.SpanSpec{
			{ID: "s", Name: "request.preprocessing", Start: 1, End: 2},
			{ID: "u", Name: "request.preprocessing", Start: 1, End: 2, Request: other},
			{ID: "t", Name: "response.streaming", Start: 3, End: 4, Request: none},
		},
		joins:  map[string]string{"s": model.JoinRequestID, "u": model.JoinRequestID},
		server: []string{"t"},
		audit:  map[string]int64{"joined_spans": 2, "unjoined_spans": 1},
	}, {
		name: "a trace without a joined request stays server activity; every imported span stays queryable",
		specs: []jointest.SpanSpec{
			{ID: "s", Name: "worker.admission", Role: "decode", Start: 1, End: 2, Request: other},
			{ID: "x", Name: "request.lifecycle", Start: 1, End: 9, Request: other},
		},
		server: []string{"s", "x"},
		audit:  map[string]int64{"unjoined_spans": 2},
	}, {
		name: "an inverted span is counted and never joined, nor links its trace",
		specs: []jointest.SpanSpec{
			{ID: "bad", Name: "request.preprocessing", Start: 5, End: 4},
			{ID: "t", Name: "response.streaming", Start: 3, End: 4, Request: none},
		},
		server: []string{"t"},
		audit:  map[string]int64{"invalid_spans": 1, "unjoined_spans": 1},
	}, {
		name:   "an out-of-window span links its trace but does not join",
		window: &join.Window{StartNS: jointest.MS(0), EndNS: jointest.MS(10)},
		specs: []jointest.SpanSpec{
			{ID: "late", Name: "request.preprocessing", Start: 11, End: 12},
			{ID: "t", Name: "response.streaming", Start: 3, End: 4, Request: none},
		},
		joins: map[string]string{"t": model.JoinTraceID},
		audit: map[string]int64{"out_of_window_spans": 1, "joined_spans": 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := join.Input{Bridges: join.NewBridges(bridges), Spans: jointest.MakeSpans(tt.specs), Window: tt.window}
			if tt.bridges != nil {
				in.Bridges = join.NewBridges(tt.bridges)
			}
			j, err := join.Join(clients, in)
			if err != nil {
				t.Fatal(err)
			}
			joins := map[string]string{}
			for _, r := range j.Requests {
				for _, sp := range r.Spans {
					joins[sp.SpanID] = sp.Join
				}
			}
			if tt.joins == nil {
				tt.joins = map[string]string{}
			}
			if !maps.Equal(joins, tt.joins) {
				t.Errorf("joins = %v, want %v", joins, tt.joins)
			}
			var server []string
			for _, sp := range j.ServerSpans {
				server = append(server, sp.SpanID)
			}
			if !slices.Equal(server, tt.server) {
				t.Errorf("server spans = %v, want %v", server, tt.server)
			}
			tt.audit["clients_with_server_identity"] = int64(in.Bridges.Len())
			if !maps.Equal(j.Audit, tt.audit) {
				t.Errorf("audit = %v, want %v", j.Audit, tt.audit)
			}
		})
	}
}

// §12 item 5: without usable OTel the bridge, engine maps and workers
// survive; engine processes are unknown unless spans still join.
func TestOptionalOTel(t *testing.T) {
	for _, mode := range []string{"missing", "unjoined", "unsupported"} {
		t.Run(mode, func(t *testing.T) {
			in := jointest.WriteRun(t)
			switch mode {
			case "missing":
				in.Spans = nil
			case "unjoined":
				for i := range in.Spans {
					in.Spans[i] = jointest.MakeSpan(jointest.SpanSpec{ID: in.Spans[i].SpanID, Name: in.Spans[i].Name, Request: jointest.Ptr(jointest.OtherUUID)}, i)
				}
			case "unsupported":
				for i := range in.Spans {
					in.Spans[i].Name = "request.lifecycle"
				}
			}
			j, err := join.Join(jointest.WriteRunClients(), in)
			if err != nil {
				t.Fatal(err)
			}
			r := &j.Requests[0]
			if !slices.Equal(r.Workers, []string{"decode-0", "prefill-0"}) || len(r.BridgeEvidence) != 1 {
				t.Errorf("workers %v, bridge evidence %v", r.Workers, r.BridgeEvidence)
			}
			for _, e := range r.Engine {
				if (e.Process == nil) != (mode != "unsupported") {
					t.Errorf("engine process = %v", e.Process)
				}
			}
			if wantJoined := map[bool]int64{true: 14}[mode == "unsupported"]; j.Audit["joined_spans"] != wantJoined {
				t.Errorf("joined spans = %d, want %d", j.Audit["joined_spans"], wantJoined)
			}
			for i := range j.Requests {
				if l := lifecycle.Derive(&j.Requests[i]); l.Available {
					t.Errorf("%s: lifecycle available", l.Request)
				}
			}
		})
	}
}

// Real captured lines: a frontend x_request_id without a Dynamo UUID
// bridges nothing, and generic OTLP spans neither join nor become server
// activity.
func TestRealFixtures(t *testing.T) {
	in := jointest.ReadRun(t, os.DirFS("testdata/real"))
	if n := in.Bridges.Len(); n != 0 {
		t.Fatalf("%d bridges", n)
	}
	c := &otlp.Collector{}
	if err := c.AddFile(os.DirFS("testdata/real"), "otel/traces.json"); err != nil {
		t.Fatal(err)
	}
	in.Spans = c.Result().Spans
	j, err := join.Join([]model.ClientTiming{{ID: "8372eac7-5f43-4d76-beca-0a94cfb311d0"}}, in)
	if err != nil {
		t.Fatal(err)
	}
	// None joins; every one stays queryable as an independent server span.
	if len(j.ServerSpans) != len(in.Spans) || len(j.Requests[0].Spans) != 0 || j.Audit["unjoined_spans"] != int64(len(in.Spans)) || len(in.Spans) == 0 {
		t.Errorf("server spans %d, joined %d, audit %v", len(j.ServerSpans), len(j.Requests[0].Spans), j.Audit)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func equalPtr(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
