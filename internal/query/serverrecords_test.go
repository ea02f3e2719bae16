package query

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/golden"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
)

// writeRunFrame renders the join fixture with the source ids a report of it
// registers.
func writeRunFrame() frame {
	f := frame{originNS: jointest.Origin, sources: map[string]int{}}
	for _, src := range jointest.WriteRunSources() {
		f.sources[src.Path] = src.ID
	}
	return f
}

func TestRecords(t *testing.T) {
	j := jointest.JoinWriteRun(t)
	d := writeRunFrame().serverDetail(&j.Requests[0])
	spans, engine, bindings := d.Spans, d.Engine, d.WorkerBindings
	var route *SpanRecord
	for i := range spans {
		if spans[i].ID == "droute" {
			route = &spans[i]
		}
	}
	if route == nil {
		t.Fatal("no droute record")
	}
	got, err := json.Marshal(route.Routing)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"phase":"Decode","worker_id":null,"dp_rank":"1","request_id":"` + jointest.ServerID +
		`","request.attempt":null,"migration.is_retry":null,"request.outcome":null}`
	if string(got) != want {
		t.Errorf("routing = %s\nwant      %s", got, want)
	}
	if route.Start != 2.12 || route.End != 7.9 || route.RawStartNS != "1789642713120000000" || *route.Evidence.Source != 2 || *route.Evidence.Ordinal != 8 {
		t.Errorf("route record %+v", route)
	}
	if len(engine) != 2 || engine[0].Worker != "decode-0" || *engine[0].ObservedAt != 2.23 || *engine[0].Evidence.Source != 3 {
		t.Errorf("engine = %+v", engine)
	}
	if len(bindings) != 2 || bindings[1].Worker != "prefill-0" || *bindings[1].Process != "epoch-prefill" || bindings[1].Basis != join.BasisEngineMap {
		t.Errorf("bindings = %+v", bindings)
	}
}

func TestServerSpanRecords(t *testing.T) {
	specs := jointest.WriteRunSpecs()
	j, err := join.Join([]model.ClientTiming{{ID: "a"}}, join.Input{Spans: jointest.MakeSpans(specs[9:11])})
	if err != nil {
		t.Fatal(err)
	}
	var recs []ServerSpanRecord
	for k := range j.ServerSpans {
		recs = append(recs, frame{originNS: jointest.Origin}.serverSpanRecord(&j.ServerSpans[k]))
	}
	if len(recs) != 2 {
		t.Fatalf("records = %+v", recs)
	}
	got, err := json.Marshal(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"label":"Decode ingress and transport setup"`, `"kind":"activity"`, `"join":null`,
		`"worker":null`, `"host":"decode-host"`, `"evidence":{"source":null,"path":"otel/collector/traces.jsonl","line":1,"ordinal":0}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
}

func TestCollectorIsNeverAHost(t *testing.T) {
	sp := jointest.MakeSpan(jointest.SpanSpec{ID: "s", Name: "response.streaming"}, 0)
	sp.Attrs = sp.Attrs[:2] // request id and role only
	rec := frame{}.spanRecord(&model.JoinedSpan{Span: &sp})
	if rec.Host != nil || rec.HostRecorded || rec.Collector == nil || *rec.Collector != "collector" {
		t.Errorf("host %v recorded %v collector %v", rec.Host, rec.HostRecorded, rec.Collector)
	}
}

// The fixture's lifecycle as every surface shows it.
func TestLifecycleGolden(t *testing.T) {
	j := jointest.JoinWriteRun(t)
	got, err := json.MarshalIndent(writeRunFrame().lifecycle(lifecycle.Derive(&j.Requests[0])), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/write_run.lifecycle.golden", append(got, '\n'))
}

func TestLifecycleUnavailable(t *testing.T) {
	j := jointest.JoinWriteRun(t)
	got, err := json.Marshal(writeRunFrame().lifecycle(lifecycle.Derive(&j.Requests[1])))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"request":"client-only","available":false,"layout":"cumulative-milestones","stages":[],` +
		`"activities":[],"milestones":[],"issues":[],"rows":[],"timing":""}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if b, _ := json.Marshal(unavailableLifecycle("client-only")); string(b) != want {
		t.Errorf("unavailable answer %s", b)
	}
}
