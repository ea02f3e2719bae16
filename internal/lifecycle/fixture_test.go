package lifecycle

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/internal/sourcename"
)

// The reference's write_run fixture: one joined request (0–8 s, TTFT 3 s)
// and one client-only request (9–10 s).
const (
	origin     = int64(1789642711000000000)
	clientID   = "11111111-1111-4111-8111-111111111111"
	serverID   = "22222222-2222-4222-8222-222222222222"
	otherUUID  = "33333333-3333-4333-8333-333333333333"
	traceID    = "1234567890abcdef1234567890abcdef"
	clientPath = "agentic/conc_2/aiperf_artifacts/profile_export.jsonl"
)

func ms(n int64) int64 { return origin + n*1_000_000 }

func ptr[T any](v T) *T { return &v }

func clientEvidence(line int64) Evidence {
	return Evidence{Source: ptr(0), Path: clientPath, Line: line}
}

func writeRunClients() []ClientRequest {
	return []ClientRequest{
		{ID: clientID, StartNS: ms(0), EndNS: ms(8000), FirstNS: ptr(ms(3000)), Evidence: clientEvidence(1)},
		{ID: "client-only", StartNS: ms(9000), EndNS: ms(10000), Evidence: clientEvidence(2)},
	}
}

func writeRunFrame() Frame {
	return Frame{OriginNS: origin, Sources: map[string]int{
		clientPath:                    0,
		"front_frontend_0.out":        1,
		"otel/collector/traces.jsonl": 2,
		"decode-host_decode_w0.out":   3,
		"prefill-host_prefill_w0.out": 4,
	}}
}

// readRun reads a run directory with the real parsers, as the importer
// will: OTel collector exports, frontend bridges, worker-log identities.
func readRun(t testing.TB, fsys fs.FS) Input {
	t.Helper()
	res, err := otlp.ReadAll(fsys, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Spans: res.Spans}
	frontends, _ := fs.Glob(fsys, "*_frontend_*.out")
	for _, name := range frontends {
		f, err := fsys.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		log, err := dynamolog.ScanFrontend(f, name)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		in.Bridges = append(in.Bridges, log.Bridges...)
	}
	workers, _ := fs.Glob(fsys, "*_w*.out")
	slices.Sort(workers)
	for _, name := range workers {
		id, ok := sourcename.Parse(path.Base(name))
		if !ok {
			continue
		}
		f, err := fsys.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		log, err := dynamolog.ScanWorker(f, name)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		in.WorkerLogs = append(in.WorkerLogs, WorkerLog{Name: id, Log: log})
	}
	return in
}

func writeRun(t testing.TB) Input { return readRun(t, os.DirFS("testdata/write_run")) }

func joinWriteRun(t testing.TB) *Joined {
	t.Helper()
	j, err := Join(writeRunClients(), writeRun(t))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// spanSpec describes a synthetic span in the shape the fixture's spans
// have: every attribute a string, times in milliseconds from the origin.
type spanSpec struct {
	id, name, role, parent string
	start, end             int64
	extra                  []string // key, value pairs
	trace                  string   // default traceID
	request                *string  // default serverID; "" leaves it out
}

func makeSpan(s spanSpec, ordinal int) otlp.Span {
	trace := s.trace
	if trace == "" {
		trace = traceID
	}
	parent := s.parent
	if parent == "" {
		parent = "root"
	}
	role := s.role
	if role == "" {
		role = "frontend"
	}
	host := role + "-host"
	if role == "frontend" {
		host = "front"
	}
	var attrs otlp.Attributes
	add := func(k, v string) { attrs = append(attrs, otlp.Attr{Key: k, Value: otlp.StringValue(v)}) }
	request := serverID
	if s.request != nil {
		request = *s.request
	}
	if request != "" {
		add("dynamo.request.id", request)
	}
	add("dynamo.operation.role", role)
	add("dynamo.instance.id", host)
	add("dynamo.process.epoch", "epoch-"+role)
	for i := 0; i+1 < len(s.extra); i += 2 {
		add(s.extra[i], s.extra[i+1])
	}
	return otlp.Span{
		TraceID: trace, SpanID: s.id, ParentSpanID: parent, Name: s.name,
		StartNS: ms(s.start), EndNS: ms(s.end), Attrs: attrs,
		Resource: &otlp.Resource{Attrs: otlp.Attributes{{Key: "service.name", Value: otlp.StringValue("dynamo")}}},
		Ref:      otlp.Ref{Path: "otel/collector/traces.jsonl", Line: 1, Ordinal: ordinal},
	}
}

// writeRunSpecs are the fixture's 14 spans, for tests that vary them.
func writeRunSpecs() []spanSpec {
	return []spanSpec{
		{id: "preprocess", name: "request.preprocessing", start: 10, end: 100},
		{id: "pselect", name: "kv_router.select_worker", start: 110, end: 120},
		{id: "proute", name: "kv_router.route_request", start: 130, end: 2050, extra: []string{"phase", "Prefill", "dp_rank", "4", "request_id", serverID}},
		{id: "padmit", name: "worker.admission", role: "prefill", start: 140, end: 200},
		{id: "pop", name: "worker.operation.prefill", role: "prefill", start: 200, end: 2000},
		{id: "pdispatch", name: "request.dispatch", role: "prefill", parent: "pop", start: 210, end: 220},
		{id: "ppump", name: "response.streaming.prefill", role: "prefill", parent: "pop", start: 230, end: 1990},
		{id: "dselect", name: "kv_router.select_worker", start: 2100, end: 2110},
		{id: "droute", name: "kv_router.route_request", start: 2120, end: 7900, extra: []string{"phase", "Decode", "dp_rank", "1", "request_id", serverID}},
		{id: "dadmit", name: "worker.admission", role: "decode", start: 2130, end: 2200},
		{id: "dop", name: "worker.operation.decode", role: "decode", start: 2200, end: 7900},
		{id: "ddispatch", name: "request.dispatch", role: "decode", parent: "dop", start: 2210, end: 2220},
		{id: "dpump", name: "response.streaming.decode", role: "decode", parent: "dop", start: 2230, end: 7890},
		{id: "fstream", name: "response.streaming", start: 2990, end: 7990},
	}
}

func makeSpans(specs []spanSpec) []otlp.Span {
	out := make([]otlp.Span, len(specs))
	for i, s := range specs {
		out[i] = makeSpan(s, i)
	}
	return out
}

func bridge(client, server, file string, line int64) dynamolog.Bridge {
	return dynamolog.Bridge{ClientID: client, ServerID: server, ServerKey: "dynamo.request.id", Ref: dynamolog.Ref{Path: file, Line: line}}
}

// workerLog builds a worker log whose file name is name (parsed with the
// shared grammar).
func workerLog(t testing.TB, name string, bindings []dynamolog.Binding, maps []dynamolog.EngineMap) WorkerLog {
	t.Helper()
	id, ok := sourcename.Parse(name)
	if !ok {
		t.Fatalf("%s is not a worker name", name)
	}
	for i := range bindings {
		bindings[i].Ref.Path = name
	}
	for i := range maps {
		maps[i].Ref.Path = name
	}
	return WorkerLog{Name: id, Log: &dynamolog.WorkerLog{Path: name, Bindings: bindings, EngineMaps: maps}}
}

func engineMap(server, client string, line int64) dynamolog.EngineMap {
	return dynamolog.EngineMap{ServerID: server, ClientID: client, DisaggID: ptr("99"), Ref: dynamolog.Ref{Line: line}}
}

func binding(server, host, role, process string, line int64) dynamolog.Binding {
	return dynamolog.Binding{ServerID: server, Host: host, Role: role, RecordedRole: role, Process: process, Ref: dynamolog.Ref{Line: line}}
}

func spanByID(r *Request, id string) *Span {
	for k := range r.Spans {
		if r.Spans[k].SpanID == id {
			return &r.Spans[k]
		}
	}
	return nil
}
