package aiperf

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"
)

const okRow = `{"metadata":{"x_request_id":"ok","request_start_ns":1800000000000000000,"request_end_ns":1800000001000000000,"benchmark_phase":"profiling"}}`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		phase string
		want  string // substring of the error
	}{
		{"malformed JSON", okRow + "\n\n{\"metadata\": {\n", "", "x.jsonl:3: invalid client record: invalid JSON"},
		{"truncated last line", okRow + "\n" + okRow[:len(okRow)-1], "", "x.jsonl:2: invalid client record: invalid JSON: unexpected end of record"},
		{"not an object", "[1,2]\n", "", "x.jsonl:1: invalid client record: record is not a JSON object"},
		{"trailing data", okRow + " {}\n", "", "x.jsonl:1: invalid client record: invalid JSON: unexpected data after the record"},
		{"missing metadata", `{"metrics":{}}`, "", "x.jsonl:1: invalid client record: metadata is missing"},
		{"native AgentPerf row", `{"start_time":1789642700.0}`, "", "AgentPerf adapter"},
		{"missing request_start_ns", `{"metadata":{"request_end_ns":1800000001000000000}}`, "", "x.jsonl:1: invalid client record: metadata.request_start_ns is missing"},
		{"null request_start_ns", `{"metadata":{"request_start_ns":null,"request_end_ns":1}}`, "", "metadata.request_start_ns is null"},
		{"missing request_end_ns", `{"metadata":{"request_start_ns":1800000000000000000}}`, "", "metadata.request_end_ns is missing"},
		{"zero start", `{"metadata":{"request_start_ns":0,"request_end_ns":1}}`, "", "metadata.request_start_ns must be positive"},
		{"fractional start", `{"metadata":{"request_start_ns":1.5,"request_end_ns":2}}`, "", "not an integer"},
		{"string start", `{"metadata":{"request_start_ns":"1","request_end_ns":2}}`, "", "metadata.request_start_ns is not a number"},
		{"start beyond int64", `{"metadata":{"request_start_ns":1e30,"request_end_ns":2}}`, "", "out of the int64 range"},
		{"end before start", `{"metadata":{"request_start_ns":1800000001000000000,"request_end_ns":1800000000000000000}}`, "", "x.jsonl:1: invalid client record: request ends before it starts"},
		{"legacy end before start", `{"metadata":{"timestamp_ns":20},"metrics":{"max_response_timestamp":{"value":10}}}`, "", "max_response_timestamp 10 < timestamp_ns 20"},
		{"legacy negative latency", `{"metadata":{"timestamp_ns":20},"metrics":{"request_latency":{"value":-1}}}`, "", "request_latency.value is negative"},
		{"mixed schemas", okRow + "\n" + `{"metadata":{"timestamp_ns":20}}`, "", "x.jsonl:2: invalid client record: legacy-schema row in a current-schema export"},
		{"duplicate id", okRow + "\n\n" + okRow, "", `x.jsonl:3: duplicate request id "ok" (first on line 1)`},
		{"all rows warmup", strings.ReplaceAll(okRow, "profiling", "warmup") + "\n", "", `x.jsonl: no client requests for phase "profiling" (1 rows excluded); warmup is never substituted`},
		{"metric not an object", `{"metadata":{"request_start_ns":1,"request_end_ns":2},"metrics":{"ttft":5}}`, "", "metrics.ttft is not an object"},
		{"ttft string", `{"metadata":{"request_start_ns":1,"request_end_ns":2},"metrics":{"ttft":{"value":"5"}}}`, "", "metrics.ttft.value is not a number"},
		{"fractional tokens", `{"metadata":{"request_start_ns":1,"request_end_ns":2},"metrics":{"output_sequence_length":{"value":2.5}}}`, "", "metrics.output_sequence_length.value 2.5: not an integer"},
		{"negative depth", `{"metadata":{"request_start_ns":1,"request_end_ns":2,"agent_depth":-1}}`, "", "agent_depth is negative"},
		{"object id", `{"metadata":{"x_request_id":{},"request_start_ns":1,"request_end_ns":2}}`, "", "metadata.x_request_id is not a string"},
		{"invalid UTF-8 id", "{\"metadata\":{\"x_request_id\":\"a\xffb\",\"request_start_ns\":1,\"request_end_ns\":2}}", "", "invalid UTF-8"},
		{"control character", "{\"metadata\":{\"x_request_id\":\"a\tb\",\"request_start_ns\":1,\"request_end_ns\":2}}", "", "control character in string"},
		{"deep nesting", `{"metadata":{"request_start_ns":1,"request_end_ns":2},"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + "}", "", "nesting deeper than 512"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tc.input), Options{File: "x.jsonl", Phase: tc.phase})
			if err == nil {
				t.Fatalf("got %d requests, want error containing %q", len(res.Requests), tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	long := `{"metadata":{"x_request_id":"long","request_start_ns":1,"request_end_ns":2},"metrics":{"inter_chunk_latency":{"value":[` +
		strings.Repeat("4.898437,", 300_000) + `1]}}}`
	input := okRow + "\n" + long + "\n"
	res, err := Parse(strings.NewReader(input), Options{File: "x.jsonl", Phase: "all"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Requests) != 2 || res.Requests[1].ID != "long" {
		t.Fatalf("got %+v", res.Requests)
	}
	_, err = Parse(strings.NewReader(input), Options{File: "x.jsonl", Phase: "all", MaxLineBytes: 1 << 20})
	if err == nil || !strings.HasPrefix(err.Error(), "x.jsonl:2: line too long") {
		t.Fatalf("got %v, want a line-length error on line 2", err)
	}
}

func TestDataStaysData(t *testing.T) {
	hostile := `<img src=x onerror=alert(1)>`
	row := strings.Replace(okRow, `"ok"`, `"`+hostile+`"`, 1)
	res, err := Parse(strings.NewReader(row), Options{File: "x.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Requests[0].ID; got != hostile {
		t.Fatalf("id %q, want %q unchanged", got, hostile)
	}
}

func TestEmptyInput(t *testing.T) {
	res, err := Parse(strings.NewReader("\n  \n\t\n"), Options{File: "x.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 0 || res.Schema != "" || len(res.Requests) != 0 {
		t.Fatalf("got %+v, want an empty result", res)
	}
}

func TestPromptAndResponseTextAreNotKept(t *testing.T) {
	row := strings.Replace(okRow, `"metadata"`, `"request":{"messages":[{"content":"SECRET_PROMPT"}]},"responses":[{"text":"SECRET_RESPONSE"}],"metadata"`, 1)
	res, err := Parse(strings.NewReader(row), Options{File: "x.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, r := range res.Requests {
		b.WriteString(r.ID)
		b.WriteString(r.Session)
		b.WriteString(r.Agent)
	}
	if strings.Contains(b.String(), "SECRET") {
		t.Fatal("prompt or response text kept")
	}
}

// The turns of a session share one copy of its ids: a million-request
// export holds them until the report is written.
func TestSessionIDsAreKeptOnce(t *testing.T) {
	row := func(id string) string {
		return `{"metadata":{"x_request_id":"` + id + `","x_correlation_id":"agent-1","root_correlation_id":"session-1",` +
			`"conversation_id":"conv-1","parent_correlation_id":"parent-1","request_start_ns":1,"request_end_ns":2}}`
	}
	res, err := Parse(strings.NewReader(row("a")+"\n"+row("b")+"\n"), Options{File: "x.jsonl", Phase: "all"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := &res.Requests[0], &res.Requests[1]
	same := func(name, x, y string) {
		if x != y || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: %q and %q are two copies", name, x, y)
		}
	}
	same("session", a.Session, b.Session)
	same("agent", a.Agent, b.Agent)
	same("conversation", *a.Conversation, *b.Conversation)
	same("parent", *a.Parent, *b.Parent)
	if a.Session != "session-1" || a.Agent != "agent-1" || *a.Conversation != "conv-1" || *a.Parent != "parent-1" {
		t.Errorf("ids %q %q %q %q", a.Session, a.Agent, *a.Conversation, *a.Parent)
	}
	if a.Conversation == b.Conversation {
		t.Error("two requests share one *string")
	}
}
