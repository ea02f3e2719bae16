package query

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

func serverFixture() *model.Dataset {
	d := fixture()
	d.Meta.OTelEnabled = true
	d.Requests[0].Server = &model.RequestServer{
		ServerIDs: []string{"22222222-2222-4222-8222-222222222222"}, Workers: []string{"decode-0", "prefill-0"}, SpanCount: 2, LifecycleAvailable: true,
		Detail: []byte(`{"bridge_evidence":[{"source":0,"path":"f.out","line":3}],"spans":[{"id":"a"},{"id":"b"}],"engine":[],"worker_bindings":[],"lifecycle":{"request":"parent-turn","available":true,"stages":[{"id":"progress:0"}]}}`),
	}
	d.ServerSpans = []model.ServerSpan{
		{StartNS: 1 * s, EndNS: 2 * s, Record: []byte(`{"id":"u1","name":"request.preprocessing"}`)},
		{StartNS: 10 * s, EndNS: 11 * s, Record: []byte(`{"id":"u2","name":"request.dispatch"}`)},
	}
	return d
}

func TestServerEvidence(t *testing.T) {
	e, err := FromDataset(serverFixture())
	if err != nil {
		t.Fatal(err)
	}
	res, _ := ask(t, e, `{"op":"lifecycle","args":{"id":"parent-turn"}}`)
	if res["available"] != true || len(res["stages"].([]any)) != 1 {
		t.Fatalf("lifecycle: %v", res)
	}
	res, _ = ask(t, e, `{"op":"lifecycle","args":{"id":"late"}}`)
	if res["available"] != false || len(res["stages"].([]any)) != 0 || res["layout"] != "cumulative-milestones" {
		t.Fatalf("a request without server evidence has an unavailable lifecycle: %v", res)
	}
	res, _ = ask(t, e, `{"op":"request","args":{"id":"parent-turn"}}`)
	if len(res["spans"].([]any)) != 2 || res["span_count"].(float64) != 2 || len(res["bridge_evidence"].([]any)) != 1 {
		t.Fatalf("request detail: %v", res)
	}
	for q, want := range map[string]string{
		`{"op":"requests","args":{"worker":"decode-0"}}`:  "parent-turn",
		`{"op":"requests","args":{"search":"2222-4222"}}`: "parent-turn",
		`{"op":"requests","args":{"search":"PREFILL-0"}}`: "parent-turn",
		`{"op":"requests","args":{"worker":"decode-1"}}`:  "",
	} {
		res, errText := ask(t, e, q)
		if errText != "" {
			t.Fatal(errText)
		}
		if got := strings.Join(ids(res), " "); got != want {
			t.Errorf("%s: %q, want %q", q, got, want)
		}
	}
	res, _ = ask(t, e, `{"op":"server_spans","args":{"from":0,"to":5}}`)
	if res["total"].(float64) != 1 || res["items"].([]any)[0].(map[string]any)["id"] != "u1" {
		t.Fatalf("server spans: %v", res)
	}
	res, _ = ask(t, e, `{"op":"server_spans","args":{"limit":1,"offset":1}}`)
	if res["total"].(float64) != 2 || res["items"].([]any)[0].(map[string]any)["id"] != "u2" {
		t.Fatalf("server span pagination: %v", res)
	}
	var sum Summary
	if err := json.Unmarshal(mustResult(t, e, `{"op":"summary"}`), &sum); err != nil {
		t.Fatal(err)
	}
	if !sum.Capabilities.RequestBreakdown || !sum.Capabilities.ServerActivity || sum.Counts.Workers != 2 || !sum.Meta.OTelEnabled {
		t.Fatalf("summary: %+v", sum)
	}
}

func mustResult(t *testing.T, e *Engine, q string) []byte {
	t.Helper()
	var env struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(e.Handle([]byte(q)), &env); err != nil || !env.OK {
		t.Fatalf("%s: %v %s", q, err, env.Error)
	}
	return env.Result
}

// The page opens on a traced request when there is one: it has the most
// evidence to show.
func TestDefaultRequestPrefersTraced(t *testing.T) {
	e, err := FromDataset(serverFixture())
	if err != nil {
		t.Fatal(err)
	}
	if id := e.DefaultRequest(); id == nil || *id != "parent-turn" {
		t.Fatalf("default request %v, want the traced parent-turn", id)
	}
}
