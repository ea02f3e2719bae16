package query

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// serverEvidence is the joined evidence of the fixture's parent-turn: a
// bridge line and two spans of one trace.
func serverEvidence(d *model.Dataset) model.RequestEvidence {
	span := func(id string, from, to int64) model.JoinedSpan {
		return model.JoinedSpan{Span: &model.Span{
			TraceID: "t1", SpanID: id, Name: "request.preprocessing", StartNS: d.Meta.OriginNS + from, EndNS: d.Meta.OriginNS + to,
			Ref: model.SpanRef{Path: "otel/c/traces.jsonl", Line: 1, Ordinal: int(from / s)},
		}, Join: model.JoinRequestID}
	}
	return model.RequestEvidence{
		Client:         model.ClientTiming{ID: "parent-turn", StartNS: d.Meta.OriginNS, EndNS: d.Meta.OriginNS + 8*s, FirstNS: ptr(d.Meta.OriginNS + 3*s), Evidence: model.LineRef{Path: "logs/profile_export.jsonl", Line: 1}},
		ServerIDs:      []string{"22222222-2222-4222-8222-222222222222"},
		BridgeEvidence: []model.LineRef{{Path: "f.out", Line: 3}},
		Spans:          []model.JoinedSpan{span("a", 0, s), span("b", s, 2*s)},
		Workers:        []string{"decode-0", "prefill-0"},
	}
}

func serverFixture() *model.Dataset {
	d := fixture()
	d.Meta.OTelEnabled = true
	d.Evidence = []model.RequestEvidence{serverEvidence(d)}
	d.Requests[0].Server = &model.RequestServer{
		ServerIDs: []string{"22222222-2222-4222-8222-222222222222"}, Workers: []string{"decode-0", "prefill-0"}, SpanCount: 2, LifecycleAvailable: true,
	}
	unowned := func(id, name string, from, to int64) model.JoinedSpan {
		return model.JoinedSpan{Span: &model.Span{
			TraceID: "t2", SpanID: id, Name: name, StartNS: d.Meta.OriginNS + from, EndNS: d.Meta.OriginNS + to,
			Ref: model.SpanRef{Path: "otel/c/traces.jsonl", Line: 2},
		}}
	}
	d.ServerSpans = []model.JoinedSpan{unowned("u1", "request.preprocessing", 1*s, 2*s), unowned("u2", "request.dispatch", 10*s, 11*s)}
	return d
}

// The engine renders a request's server side from the report's stored
// evidence exactly as from the joined request itself.
func TestServerDetailRendersTheChunk(t *testing.T) {
	d := serverFixture()
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	joined := serverEvidence(d)
	f := frame{originNS: d.Meta.OriginNS, sources: map[string]int{"logs/profile_export.jsonl": 0}}
	want, _ := json.Marshal(f.serverDetail(&joined))
	var got ServerDetail
	if err := json.Unmarshal(mustResult(t, e, `{"op":"request","args":{"id":"parent-turn"}}`), &got); err != nil {
		t.Fatal(err)
	}
	if have, _ := json.Marshal(got); string(have) != string(want) {
		t.Fatalf("rendered\n%s\nwant\n%s", have, want)
	}
	if lc := mustResult(t, e, `{"op":"lifecycle","args":{"id":"parent-turn"}}`); !strings.Contains(string(lc), `"request":"parent-turn"`) {
		t.Fatalf("lifecycle: %s", lc)
	}
}

func TestServerEvidence(t *testing.T) {
	e, err := FromDataset(serverFixture())
	if err != nil {
		t.Fatal(err)
	}
	res, _ := ask(t, e, `{"op":"lifecycle","args":{"id":"late"}}`)
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

// A damaged evidence chunk is a clear error for the requests it holds, never
// a crash or an empty answer presented as the truth.
func TestDamagedServerChunk(t *testing.T) {
	d := serverFixture()
	c, err := catalog.Open(catalog.Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	ev := catalog.EncodeEvidence(d)
	payload, _ := ev.Tables[0].Column("payload")
	payload.Strings[0] = "not a deflated chunk"
	if err := c.AttachEvidence(ev); err != nil {
		t.Fatal(err)
	}
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`{"op":"request","args":{"id":"parent-turn"}}`, `{"op":"lifecycle","args":{"id":"parent-turn"}}`} {
		_, errText := ask(t, e, q)
		if !strings.Contains(errText, "parent-turn") || !strings.Contains(errText, "stored server evidence") {
			t.Errorf("%s: error %q", q, errText)
		}
	}
	// Requests without server evidence still answer.
	if _, errText := ask(t, e, `{"op":"lifecycle","args":{"id":"late"}}`); errText != "" {
		t.Fatal(errText)
	}
}

// Until the evidence shard is attached, a request with server evidence
// says so and claims nothing about its server side; then it answers fully.
func TestEvidencePending(t *testing.T) {
	d := serverFixture()
	e := withoutEvidence(t, d)
	res, _ := ask(t, e, `{"op":"request","args":{"id":"parent-turn"}}`)
	if res["evidence_pending"] != true || len(res["spans"].([]any)) != 0 {
		t.Fatalf("before the evidence: %v", res)
	}
	if res, _ := ask(t, e, `{"op":"request","args":{"id":"late"}}`); res["evidence_pending"] != nil {
		t.Fatalf("a request without server evidence is pending: %v", res)
	}
	if err := e.AttachEvidence(catalog.EncodeEvidence(d)); err != nil {
		t.Fatal(err)
	}
	res, _ = ask(t, e, `{"op":"request","args":{"id":"parent-turn"}}`)
	if res["evidence_pending"] != nil || len(res["spans"].([]any)) != 2 {
		t.Fatalf("after the evidence: %v", res)
	}
}
