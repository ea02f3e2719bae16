package query

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/model"
)

func ptr[T any](v T) *T { return &v }

const s = int64(1_000_000_000)

// fixture: two sessions; session "a" has a main agent and a subagent.
func fixture() *model.Dataset {
	return &model.Dataset{
		Meta:    model.Meta{Job: "j", OriginNS: 1789642711000000000, DurationNS: 12 * s, Phase: "profiling", ClientKind: "aiperf"},
		Audit:   model.Audit{"client_requests": 4},
		Sources: []model.Source{{ID: 0, Path: "logs/profile_export.jsonl", Kind: "client", Bytes: 10, SHA256: "ff"}},
		Requests: []model.Request{
			{ID: "parent-turn", Session: "a", Agent: "main", StartNS: 0, EndNS: 8 * s, FirstNS: ptr(3 * s), TTFTms: ptr(3000.0), Status: "completed", Evidence: model.Ref{Line: 1}},
			{ID: "child-turn", Session: "a", Agent: "child", Parent: ptr("main"), Depth: 1, StartNS: 4 * s, EndNS: 6 * s, FirstNS: ptr(4*s + s/10), TTFTms: ptr(100.0), Status: "completed", Evidence: model.Ref{Line: 2}},
			{ID: "<img src=x onerror=alert(1)>", Session: "b", Agent: "b", StartNS: 9 * s, EndNS: 10 * s, Status: "cancelled", Conversation: ptr("conv-Q"), Evidence: model.Ref{Line: 3}},
			{ID: "late", Session: "c", Agent: "c", StartNS: 11 * s, EndNS: 12 * s, FirstNS: ptr(11*s + s/2), TTFTms: ptr(500.0), Status: "completed", Evidence: model.Ref{Line: 4}},
		},
	}
}

func engine(t *testing.T) *Engine {
	t.Helper()
	e, err := FromDataset(fixture())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// ask runs a JSON question through Handle, as the CLI and the page do.
func ask(t *testing.T, e *Engine, q string) (map[string]any, string) {
	t.Helper()
	var env struct {
		OK     bool           `json:"ok"`
		Result map[string]any `json:"result"`
		Error  string         `json:"error"`
	}
	if err := json.Unmarshal(e.Handle([]byte(q)), &env); err != nil {
		t.Fatal(err)
	}
	return env.Result, env.Error
}

func ids(res map[string]any) []string {
	var out []string
	for _, it := range res["items"].([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

func TestRequests(t *testing.T) {
	e := engine(t)
	cases := []struct {
		q     string
		total int
		ids   string
	}{
		{`{"op":"requests"}`, 4, "parent-turn child-turn <img src=x onerror=alert(1)> late"},
		{`{"op":"requests","args":{"from":8.5,"to":10.5}}`, 1, "<img src=x onerror=alert(1)>"},
		{`{"op":"requests","args":{"from":5,"to":5.5}}`, 2, "parent-turn child-turn"},                 // overlap, not containment
		{`{"op":"requests","args":{"from":8,"to":9}}`, 2, "parent-turn <img src=x onerror=alert(1)>"}, // touching ends overlap
		{`{"op":"requests","args":{"min_ttft_ms":400}}`, 2, "parent-turn late"},                       // unknown TTFT counts as 0
		{`{"op":"requests","args":{"session":"a","agent":"child"}}`, 1, "child-turn"},
		{`{"op":"requests","args":{"search":"CONV-q"}}`, 1, "<img src=x onerror=alert(1)>"},
		{`{"op":"requests","args":{"search":"a"}}`, 4, "parent-turn child-turn <img src=x onerror=alert(1)> late"},
		{`{"op":"requests","args":{"offset":1,"limit":2}}`, 4, "child-turn <img src=x onerror=alert(1)>"},
		{`{"op":"requests","args":{"offset":9}}`, 4, ""},
		{`{"op":"requests","args":{"limit":0}}`, 4, ""},
	}
	for _, c := range cases {
		res, errText := ask(t, e, c.q)
		if errText != "" {
			t.Fatalf("%s: %s", c.q, errText)
		}
		if got := int(res["total"].(float64)); got != c.total {
			t.Errorf("%s: total %d, want %d", c.q, got, c.total)
		}
		if got := strings.Join(ids(res), " "); got != c.ids {
			t.Errorf("%s: ids %q, want %q", c.q, got, c.ids)
		}
	}
}

func TestRejects(t *testing.T) {
	e := engine(t)
	for q, want := range map[string]string{
		`{"op":"requests","args":{"from":5,"to":5}}`:  "Range must satisfy",
		`{"op":"requests","args":{"from":-1}}`:        "Range must satisfy",
		`{"op":"requests","args":{"to":13}}`:          "Range must satisfy",
		`{"op":"requests","args":{"limit":1001}}`:     "limit must be an integer from 0 to 1000",
		`{"op":"requests","args":{"limit":2.5}}`:      "limit must be an integer",
		`{"op":"requests","args":{"offset":-1}}`:      "offset must be an integer",
		`{"op":"requests","args":{"min_ttft_ms":-1}}`: "min_ttft_ms",
		`{"op":"request","args":{"id":"nope"}}`:       "Unknown request",
		`{"op":"sessions","args":{"sort":"random"}}`:  "sort must be one of",
		`{"op":"bogus"}`:                       "unknown query kind",
		`{"op":"requests","args":{"frm":1}}`:   "bad query",
		`not json`:                             "bad query",
		`{"op":"overview","args":{"bins":-3}}`: "bins must be",
		`{"op":"source","args":{"id":"x"}}`:    "source id must be an integer",
	} {
		if _, errText := ask(t, e, q); !strings.Contains(errText, want) {
			t.Errorf("%s: error %q, want it to contain %q", q, errText, want)
		}
	}
}

func TestRequestDetail(t *testing.T) {
	e := engine(t)
	res, errText := ask(t, e, `{"op":"request","args":{"id":"child-turn"}}`)
	if errText != "" {
		t.Fatal(errText)
	}
	if res["first"].(float64) != 4.1 || res["ttft_ms"].(float64) != 100 || res["parent"].(string) != "main" {
		t.Fatalf("detail: %v", res)
	}
	if res["raw_start_ns"] != "1789642715000000000" {
		t.Fatalf("raw_start_ns %v", res["raw_start_ns"])
	}
	lc := res["lifecycle"].(map[string]any)
	if lc["available"] != false || len(lc["stages"].([]any)) != 0 {
		t.Fatalf("lifecycle must be unavailable without server evidence: %v", lc)
	}
	ev := res["evidence"].(map[string]any)
	if ev["path"] != "logs/profile_export.jsonl" || ev["line"].(float64) != 2 {
		t.Fatalf("evidence %v", ev)
	}
	// Unknown values are null, never zero.
	if res["input_tokens"] != nil || res["cached_tokens"] != nil {
		t.Fatalf("unknown token counts must be null: %v", res)
	}
}

func TestSessionsAndTimeline(t *testing.T) {
	e := engine(t)
	for sort, want := range map[string]string{
		"start": "a b c",
		"ttft":  "a c b", // longest matching TTFT first, unknown last
		"count": "a b c", // most requests, then start
	} {
		res, errText := ask(t, e, `{"op":"sessions","args":{"sort":"`+sort+`"}}`)
		if errText != "" {
			t.Fatal(errText)
		}
		if got := strings.Join(ids(res), " "); got != want {
			t.Errorf("sort %s: %q, want %q", sort, got, want)
		}
	}
	res, _ := ask(t, e, `{"op":"timeline","args":{"from":3,"to":7,"expanded":["a"],"id":"child-turn","limit":7}}`)
	items := res["items"].([]any)
	if len(items) != 1 || res["focus_index"].(float64) != 0 || res["matching_requests"].(float64) != 2 {
		t.Fatalf("timeline: %v", res)
	}
	agents := items[0].(map[string]any)["agents"].([]any)
	if len(agents) != 2 || agents[0].(map[string]any)["label"] != "Main" || agents[1].(map[string]any)["label"] != "Subagent" {
		t.Fatalf("agents: %v", agents)
	}
	res, _ = ask(t, e, `{"op":"timeline","args":{"search":"late","id":"child-turn"}}`)
	if res["focus_index"].(float64) != -1 {
		t.Fatalf("a filtered-out session has no focus index: %v", res)
	}
}

func TestOverviewAndDefault(t *testing.T) {
	e := engine(t)
	res, _ := ask(t, e, `{"op":"overview","args":{"bins":12}}`)
	counts := res["counts"].([]any)
	if len(counts) != 12 || counts[0].(float64) != 1 || counts[4].(float64) != 1 || counts[9].(float64) != 1 || counts[11].(float64) != 1 {
		t.Fatalf("overview: %v", counts)
	}
	if id := e.DefaultRequest(); id == nil || *id != "parent-turn" {
		t.Fatalf("default request: %v", id) // the slowest by TTFT
	}
}

func TestSummaryAndSources(t *testing.T) {
	e := engine(t)
	res, _ := ask(t, e, `{"op":"summary"}`)
	meta := res["meta"].(map[string]any)
	if res["schema"] != model.Schema || meta["origin_ns"] != "1789642711000000000" || meta["duration"].(float64) != 12 {
		t.Fatalf("summary: %v", res)
	}
	if res["capabilities"].(map[string]any)["requests"] != true || res["counts"].(map[string]any)["sessions"].(float64) != 3 {
		t.Fatalf("summary: %v", res)
	}
	src, _ := ask(t, e, `{"op":"source","args":{"id":"0"}}`)
	if src["sha256"] != "ff" {
		t.Fatalf("source: %v", src)
	}
	var env map[string]any
	_ = json.Unmarshal(e.Handle([]byte(`{"op":"source","args":{"id":"7"}}`)), &env)
	if env["ok"] != true || env["result"] != nil {
		t.Fatalf("unknown source is null: %v", env)
	}
}

func TestNewRejects(t *testing.T) {
	d := fixture()
	d.Requests[1].ID = "parent-turn"
	if _, err := FromDataset(d); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicate ids: %v", err)
	}
	d = fixture()
	d.Requests[0], d.Requests[3] = d.Requests[3], d.Requests[0]
	if _, err := FromDataset(d); err == nil {
		t.Fatal("unsorted requests accepted")
	}
	d = fixture()
	d.Meta.DurationNS = 0
	if _, err := FromDataset(d); err == nil {
		t.Fatal("zero duration accepted")
	}
}

func FuzzHandle(f *testing.F) {
	for _, q := range []string{`{"op":"requests","args":{"from":1,"to":5,"limit":3}}`, `{"op":"timeline","args":{"expanded":["a"]}}`, `{"op":"summary"}`, `{"op":"request","args":{"id":"late"}}`} {
		f.Add([]byte(q))
	}
	e, err := FromDataset(fixture())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		defer fuzzlimit.Start(t)()
		var env map[string]any
		if err := json.Unmarshal(e.Handle(q), &env); err != nil {
			t.Fatalf("Handle returned invalid JSON for %q: %v", q, err)
		}
	})
}

// The engine remembers the last session grouping; a change in any filter
// must still produce a fresh answer.
func TestSessionGroupingCacheFollowsFilters(t *testing.T) {
	e := engine(t)
	for _, c := range []struct{ q, want string }{
		{`{"op":"sessions","args":{"sort":"ttft"}}`, "a c b"},
		{`{"op":"sessions","args":{"sort":"ttft"}}`, "a c b"},
		{`{"op":"sessions","args":{"sort":"ttft","search":"late"}}`, "c"},
		{`{"op":"sessions","args":{"sort":"ttft","min_ttft_ms":400}}`, "a c"},
		{`{"op":"sessions","args":{"sort":"ttft","from":8.5}}`, "c b"},
		{`{"op":"sessions","args":{"sort":"ttft","session":"b"}}`, "b"},
		{`{"op":"sessions","args":{"sort":"ttft"}}`, "a c b"},
	} {
		res, errText := ask(t, e, c.q)
		if errText != "" {
			t.Fatal(errText)
		}
		if got := strings.Join(ids(res), " "); got != c.want {
			t.Errorf("%s: %q, want %q", c.q, got, c.want)
		}
	}
}
