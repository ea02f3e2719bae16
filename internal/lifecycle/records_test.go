package lifecycle

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRecords(t *testing.T) {
	j := joinWriteRun(t)
	f := writeRunFrame()
	spans, engine, bindings := j.Requests[0].Records(f)
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
	want := `{"phase":"Decode","worker_id":null,"dp_rank":"1","request_id":"` + serverID +
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
	if len(bindings) != 2 || bindings[1].Worker != "prefill-0" || *bindings[1].Process != "epoch-prefill" || bindings[1].Basis != BasisEngineMap {
		t.Errorf("bindings = %+v", bindings)
	}
}

func TestServerSpanRecords(t *testing.T) {
	specs := writeRunSpecs()
	j, err := Join([]ClientRequest{{ID: "a"}}, Input{Spans: makeSpans(specs[9:11])})
	if err != nil {
		t.Fatal(err)
	}
	recs := j.ServerSpanRecords(Frame{OriginNS: origin})
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
	sp := makeSpan(spanSpec{id: "s", name: "response.streaming"}, 0)
	sp.Attrs = sp.Attrs[:2] // request id and role only
	rec := (&Span{Span: &sp}).Record(Frame{})
	if rec.Host != nil || rec.HostRecorded || rec.Collector == nil || *rec.Collector != "collector" {
		t.Errorf("host %v recorded %v collector %v", rec.Host, rec.HostRecorded, rec.Collector)
	}
}
