// Package jointest holds the join fixtures that tests of the join, the
// lifecycle derivation, the evidence codec and the query engine share: the
// reference's write_run run (read with the real parsers) and builders of
// synthetic spans, bridges and worker logs.
package jointest

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/internal/sourcename"
)

// The reference's write_run fixture: one joined request (0–8 s, TTFT 3 s)
// and one client-only request (9–10 s).
const (
	Origin     = int64(1789642711000000000)
	ClientID   = "11111111-1111-4111-8111-111111111111"
	ServerID   = "22222222-2222-4222-8222-222222222222"
	OtherUUID  = "33333333-3333-4333-8333-333333333333"
	TraceID    = "1234567890abcdef1234567890abcdef"
	ClientPath = "agentic/conc_2/aiperf_artifacts/profile_export.jsonl"
)

// MS is n milliseconds after the fixture's origin, in epoch nanoseconds.
func MS(n int64) int64 { return Origin + n*1_000_000 }

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }

// ClientEvidence points at a line of the fixture's client export.
func ClientEvidence(line int64) model.LineRef {
	return model.LineRef{Path: ClientPath, Line: line}
}

// WriteRunClients are the fixture's two client requests.
func WriteRunClients() []model.ClientTiming {
	return []model.ClientTiming{
		{ID: ClientID, StartNS: MS(0), EndNS: MS(8000), FirstNS: Ptr(MS(3000)), Evidence: ClientEvidence(1)},
		{ID: "client-only", StartNS: MS(9000), EndNS: MS(10000), Evidence: ClientEvidence(2)},
	}
}

// WriteRunSources are the source ids a report of the fixture registers for
// its files.
func WriteRunSources() []model.Source {
	return []model.Source{
		{ID: 0, Path: ClientPath, Kind: "client"},
		{ID: 1, Path: "front_frontend_0.out", Kind: "frontend_log"},
		{ID: 2, Path: "otel/collector/traces.jsonl", Kind: "otel"},
		{ID: 3, Path: "decode-host_decode_w0.out", Kind: "worker_log"},
		{ID: 4, Path: "prefill-host_prefill_w0.out", Kind: "worker_log"},
	}
}

// Testdata is the directory of the join's test data.
func Testdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// ReadRun reads a run directory with the real parsers, as the importer
// does: OTel collector exports, frontend bridges, worker-log identities.
func ReadRun(t testing.TB, fsys fs.FS) join.Input {
	t.Helper()
	res, err := otlp.ReadAll(fsys, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := join.Input{Spans: res.Spans, Bridges: join.NewBridges(ReadBridges(t, fsys))}
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
		in.WorkerLogs = append(in.WorkerLogs, join.NewWorkerLog(id, log.Bindings, log.EngineMaps))
	}
	return in
}

// ReadBridges reads the bridges of a run directory's frontend logs, in
// file order.
func ReadBridges(t testing.TB, fsys fs.FS) []model.Bridge {
	t.Helper()
	var bridges []model.Bridge
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
		bridges = append(bridges, log.Bridges...)
	}
	return bridges
}

// WriteRun reads the write_run fixture.
func WriteRun(t testing.TB) join.Input {
	return ReadRun(t, os.DirFS(filepath.Join(Testdata(), "write_run")))
}

// JoinWriteRun joins the write_run fixture.
func JoinWriteRun(t testing.TB) *join.Joined {
	t.Helper()
	j, err := join.Join(WriteRunClients(), WriteRun(t))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// SpanSpec describes a synthetic span in the shape the fixture's spans
// have: every attribute a string, times in milliseconds from the origin.
type SpanSpec struct {
	ID, Name, Role, Parent string
	Start, End             int64
	Extra                  []string // key, value pairs
	Trace                  string   // default TraceID
	Request                *string  // default ServerID; "" leaves it out
}

// MakeSpan builds the span s describes, the ordinal-th of its record.
func MakeSpan(s SpanSpec, ordinal int) model.Span {
	trace := s.Trace
	if trace == "" {
		trace = TraceID
	}
	parent := s.Parent
	if parent == "" {
		parent = "root"
	}
	role := s.Role
	if role == "" {
		role = "frontend"
	}
	host := role + "-host"
	if role == "frontend" {
		host = "front"
	}
	var attrs model.Attributes
	add := func(k, v string) { attrs = append(attrs, model.Attr{Key: k, Value: model.StringValue(v)}) }
	request := ServerID
	if s.Request != nil {
		request = *s.Request
	}
	if request != "" {
		add("dynamo.request.id", request)
	}
	add("dynamo.operation.role", role)
	add("dynamo.instance.id", host)
	add("dynamo.process.epoch", "epoch-"+role)
	for i := 0; i+1 < len(s.Extra); i += 2 {
		add(s.Extra[i], s.Extra[i+1])
	}
	return model.Span{
		TraceID: trace, SpanID: s.ID, ParentSpanID: parent, Name: s.Name,
		StartNS: MS(s.Start), EndNS: MS(s.End), Attrs: attrs,
		Resource: &model.Resource{Attrs: model.Attributes{{Key: "service.name", Value: model.StringValue("dynamo")}}},
		Ref:      model.SpanRef{Path: "otel/collector/traces.jsonl", Line: 1, Ordinal: ordinal},
	}
}

// WriteRunSpecs are the fixture's 14 spans, for tests that vary them.
func WriteRunSpecs() []SpanSpec {
	return []SpanSpec{
		{ID: "preprocess", Name: "request.preprocessing", Start: 10, End: 100},
		{ID: "pselect", Name: "kv_router.select_worker", Start: 110, End: 120},
		{ID: "proute", Name: "kv_router.route_request", Start: 130, End: 2050, Extra: []string{"phase", "Prefill", "dp_rank", "4", "request_id", ServerID}},
		{ID: "padmit", Name: "worker.admission", Role: "prefill", Start: 140, End: 200},
		{ID: "pop", Name: "worker.operation.prefill", Role: "prefill", Start: 200, End: 2000},
		{ID: "pdispatch", Name: "request.dispatch", Role: "prefill", Parent: "pop", Start: 210, End: 220},
		{ID: "ppump", Name: "response.streaming.prefill", Role: "prefill", Parent: "pop", Start: 230, End: 1990},
		{ID: "dselect", Name: "kv_router.select_worker", Start: 2100, End: 2110},
		{ID: "droute", Name: "kv_router.route_request", Start: 2120, End: 7900, Extra: []string{"phase", "Decode", "dp_rank", "1", "request_id", ServerID}},
		{ID: "dadmit", Name: "worker.admission", Role: "decode", Start: 2130, End: 2200},
		{ID: "dop", Name: "worker.operation.decode", Role: "decode", Start: 2200, End: 7900},
		{ID: "ddispatch", Name: "request.dispatch", Role: "decode", Parent: "dop", Start: 2210, End: 2220},
		{ID: "dpump", Name: "response.streaming.decode", Role: "decode", Parent: "dop", Start: 2230, End: 7890},
		{ID: "fstream", Name: "response.streaming", Start: 2990, End: 7990},
	}
}

// MakeSpans builds the spans specs describe, as one record's.
func MakeSpans(specs []SpanSpec) []model.Span {
	out := make([]model.Span, len(specs))
	for i, s := range specs {
		out[i] = MakeSpan(s, i)
	}
	return out
}

// Bridge is a frontend bridge line.
func Bridge(client, server, file string, line int64) model.Bridge {
	return model.Bridge{ClientID: client, ServerID: server, ServerKey: "dynamo.request.id", Ref: model.LineRef{Path: file, Line: line}}
}

// WorkerLog builds a worker log whose file name is name (parsed with the
// shared grammar).
func WorkerLog(t testing.TB, name string, bindings []model.ProcessBinding, maps []model.EngineMap) join.WorkerLog {
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
	return join.NewWorkerLog(id, bindings, maps)
}

// EngineMap is an Engine ID map line.
func EngineMap(server, client string, line int64) model.EngineMap {
	return model.EngineMap{ServerID: server, ClientID: client, DisaggID: Ptr("99"), Ref: model.LineRef{Line: line}}
}

// Binding is a worker-log process binding line.
func Binding(server, host, role, process string, line int64) model.ProcessBinding {
	return model.ProcessBinding{ServerID: server, Host: host, Role: role, RecordedRole: role, Process: process, Ref: model.LineRef{Line: line}}
}

// SpanByID finds a request's span by its id.
func SpanByID(r *model.RequestEvidence, id string) *model.JoinedSpan {
	for k := range r.Spans {
		if r.Spans[k].SpanID == id {
			return &r.Spans[k]
		}
	}
	return nil
}
