package importer

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/otlp"
	"github.com/dsight/dsight/internal/query"
)

// The reference's write_run: one request joined through a frontend bridge
// to 14 OTel spans and two worker logs, one client-only request.
func writeRun(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src := "join/testdata/write_run"
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		write(t, root, map[string]string{"logs/" + filepath.ToSlash(rel): string(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, map[string]string{"logs/agentic/conc_2/aiperf_artifacts/profile_export.jsonl": `{"metadata":{"x_request_id":"11111111-1111-4111-8111-111111111111","x_correlation_id":"agent-a","root_correlation_id":"session-a","request_start_ns":1789642711000000000,"request_end_ns":1789642719000000000,"benchmark_phase":"profiling"},"metrics":{"time_to_first_token":{"value":3000,"unit":"ms"}}}
{"metadata":{"x_request_id":"client-only","x_correlation_id":"session-b","request_start_ns":1789642720000000000,"request_end_ns":1789642721000000000,"benchmark_phase":"profiling","was_cancelled":true},"metrics":{}}
{"metadata":{"x_request_id":"warm","request_start_ns":1789642700000000000,"request_end_ns":1789642701000000000,"benchmark_phase":"warmup"},"metrics":{}}
`})
	return root
}

func TestServerEvidenceJoins(t *testing.T) {
	res, err := Import(Options{Run: writeRun(t)})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	var joined, clientOnly = d.Requests[0], d.Requests[1]
	if joined.Server == nil || !joined.Server.LifecycleAvailable || joined.Server.SpanCount != 14 {
		t.Fatalf("joined request: %+v", joined.Server)
	}
	if strings.Join(joined.Server.ServerIDs, ",") != "22222222-2222-4222-8222-222222222222" || strings.Join(joined.Server.Workers, ",") != "decode-0,prefill-0" {
		t.Fatalf("identities: %v %v", joined.Server.ServerIDs, joined.Server.Workers)
	}
	if clientOnly.Server != nil || clientOnly.Status != "cancelled" {
		t.Fatalf("client-only request: %+v", clientOnly)
	}
	var detail struct {
		Lifecycle struct {
			Available bool `json:"available"`
			Stages    []struct {
				Start, End float64
				Label      string
			} `json:"stages"`
			Issues []string `json:"issues"`
		} `json:"lifecycle"`
		Spans []struct {
			Evidence struct {
				Source *int   `json:"source"`
				Path   string `json:"path"`
			} `json:"evidence"`
		} `json:"spans"`
	}
	if err := json.Unmarshal(serverDetail(t, d, joined), &detail); err != nil {
		t.Fatal(err)
	}
	lc := detail.Lifecycle
	if !lc.Available || len(lc.Issues) != 0 || len(lc.Stages) < 3 {
		t.Fatalf("lifecycle: %+v", lc)
	}
	// Cumulative milestones tile the request: 0 → first token (3 s) → end (8 s).
	sum, ttft := 0.0, 0.0
	for _, st := range lc.Stages {
		sum += st.End - st.Start
		if st.Label != "Client complete" {
			ttft += st.End - st.Start
		}
	}
	if sum < 7.999999 || sum > 8.000001 || ttft < 2.999999 || ttft > 3.000001 {
		t.Fatalf("stages sum to %v (TTFT part %v): %+v", sum, ttft, lc.Stages)
	}
	for _, sp := range detail.Spans {
		if sp.Evidence.Source == nil || d.Sources[*sp.Evidence.Source].Path != sp.Evidence.Path {
			t.Fatalf("span evidence does not resolve to a source: %+v", sp.Evidence)
		}
	}
	kinds := map[string]int{}
	for _, s := range d.Sources {
		kinds[s.Kind]++
	}
	if kinds["otel"] != 1 || kinds["frontend_log"] != 1 || kinds["worker_log"] != 2 || !d.Meta.OTelEnabled {
		t.Fatalf("sources: %v", kinds)
	}
	if d.Audit["clients_with_lifecycle"] != 1 || len(d.Unread) != 0 {
		t.Fatalf("audit %v unread %v", d.Audit, d.Unread)
	}
}

func TestNoOTel(t *testing.T) {
	res, err := Import(Options{Run: writeRun(t), NoOTel: true})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	joined := d.Requests[0]
	if d.Meta.OTelEnabled || joined.Server == nil || joined.Server.LifecycleAvailable || joined.Server.SpanCount != 0 {
		t.Fatalf("--no-otel: %+v", joined.Server)
	}
	for _, s := range d.Sources {
		if s.Kind == "otel" {
			t.Fatal("an OTel file was read with --no-otel")
		}
	}
	// The bridge and the worker bindings still identify the server request.
	if len(joined.Server.ServerIDs) != 1 {
		t.Fatalf("bridge lost without OTel: %+v", joined.Server)
	}
}

// Without a client export the window is the union of the recorded source
// timestamps; no request or TTFT is synthesized, and the spans stay
// queryable as server spans.
func TestClientlessWindowIsUnionOfSources(t *testing.T) {
	root := writeRun(t)
	os.RemoveAll(filepath.Join(root, "logs", "agentic"))
	res, err := Import(Options{Run: root})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	// The union, computed from the files with the parsers directly.
	logs := os.DirFS(filepath.Join(root, "logs"))
	spans, err := otlp.ReadAll(logs, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range spans.Spans {
		lo, hi = min(lo, s.StartNS), max(hi, s.EndNS)
	}
	for _, name := range []string{"front_frontend_0.out", "decode-host_decode_w0.out", "prefill-host_prefill_w0.out"} {
		f, _ := os.Open(filepath.Join(root, "logs", name))
		defer f.Close()
		var times []*model.Timestamp
		if strings.Contains(name, "frontend") {
			log, err := dynamolog.ScanFrontend(f, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range log.Bridges {
				times = append(times, b.Time)
			}
		} else {
			log, err := dynamolog.ScanWorker(f, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range log.Bindings {
				times = append(times, b.Time)
			}
			for _, m := range log.EngineMaps {
				times = append(times, m.ObservedAt)
			}
		}
		for _, ts := range times {
			if ts != nil && ts.UnixNS != nil {
				lo, hi = min(lo, *ts.UnixNS), max(hi, *ts.UnixNS)
			}
		}
	}
	if d.Meta.OriginNS != lo || d.Meta.DurationNS != hi-lo {
		t.Fatalf("window [%d, +%d], want the union [%d, +%d]", d.Meta.OriginNS, d.Meta.DurationNS, lo, hi-lo)
	}
	if len(d.Requests) != 0 || len(d.ServerSpans) == 0 || !strings.Contains(d.Meta.TimeBasis, "no client measurement window") {
		t.Fatalf("requests %d, server spans %d, basis %q", len(d.Requests), len(d.ServerSpans), d.Meta.TimeBasis)
	}
}

// Bad server input: a truncated OTel export is an error naming file:line;
// an inverted span and a bridge to an unknown request are counted, never
// joined, and never crash the build.
func TestBadServerInput(t *testing.T) {
	root := writeRun(t)
	traces := filepath.Join(root, "logs", "otel", "collector", "traces.jsonl")
	b, _ := os.ReadFile(traces)
	os.WriteFile(traces, append(b, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId"`)...), 0o644)
	_, err := Import(Options{Run: root})
	if err == nil || !strings.Contains(err.Error(), "otel/collector/traces.jsonl:") {
		t.Fatalf("truncated OTel: %v", err)
	}

	root = writeRun(t)
	traces = filepath.Join(root, "logs", "otel", "collector", "traces.jsonl")
	inverted := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"dynamo"}}]},"scopeSpans":[{"spans":[{"traceId":"abcdefabcdefabcdefabcdefabcdefab","spanId":"00000000000000aa","name":"request.preprocessing","startTimeUnixNano":"1789642712000000000","endTimeUnixNano":"1789642711500000000"}]}]}]}` + "\n"
	f, _ := os.OpenFile(traces, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(inverted)
	f.Close()
	front := filepath.Join(root, "logs", "front_frontend_0.out")
	b, _ = os.ReadFile(front)
	unknown := strings.ReplaceAll(strings.ReplaceAll(string(b), "11111111-1111-4111-8111-111111111111", "99999999-9999-4999-8999-999999999999"), "22222222-2222-4222-8222-222222222222", "88888888-8888-4888-8888-888888888888")
	os.WriteFile(front, []byte(string(b)+unknown), 0o644)
	res, err := Import(Options{Run: root})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Dataset
	if d.Audit["invalid_spans"] != 1 || d.Audit["unknown_client_bridges"] < 1 {
		t.Fatalf("audit: %v", d.Audit)
	}
	if !strings.Contains(strings.Join(d.Meta.Warnings, "\n"), "end before they start") {
		t.Fatalf("warnings: %v", d.Meta.Warnings)
	}
	if d.Requests[0].Server == nil || !d.Requests[0].Server.LifecycleAvailable || d.Requests[0].Server.SpanCount != 14 {
		t.Fatalf("the good join must be unchanged: %+v", d.Requests[0].Server)
	}
}

// serverDetail renders request r's server evidence from its chunk, as a
// report reader does.
func serverDetail(t *testing.T, d *model.Dataset, r model.Request) []byte {
	t.Helper()
	e, ok := engines[d]
	if !ok {
		var err error
		if e, err = query.FromDataset(d); err != nil {
			t.Fatal(err)
		}
		engines[d] = e
	}
	q, _ := json.Marshal(map[string]any{"op": "request", "args": map[string]string{"id": r.ID}})
	var env struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(e.Handle(q), &env); err != nil || !env.OK {
		t.Fatalf("%s: %v %s", q, err, env.Error)
	}
	return env.Result
}

// engines holds the engine of each dataset a test asks about: the answers
// come from the report's layout of the evidence, as the page and CLI read it.
var engines = map[*model.Dataset]*query.Engine{}
