package otlp

import (
	"errors"
	"fmt"
	"github.com/dsight/dsight/internal/model"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// record builds one JSONL record with one span per (spanID, start, end).
func record(service string, spans ...string) string {
	return `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"` +
		service + `"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[` + strings.Join(spans, ",") + `]}]}]}` + "\n"
}

func span(id, start, end string, attrs ...string) string {
	return fmt.Sprintf(`{"traceId":"t1","spanId":%q,"name":"request.dispatch","startTimeUnixNano":%q,"endTimeUnixNano":%q,"attributes":[%s]}`,
		id, start, end, strings.Join(attrs, ","))
}

func strAttr(k, v string) string {
	return fmt.Sprintf(`{"key":%q,"value":{"stringValue":%q}}`, k, v)
}

func TestDiscover(t *testing.T) {
	fsys := fstest.MapFS{
		"otel/traces.jsonl":             {Data: []byte{}},
		"otel/node-b/traces.jsonl":      {Data: []byte{}},
		"otel/node-a/traces.jsonl":      {Data: []byte{}},
		"otel/node-a/other.jsonl":       {Data: []byte{}},
		"otel/x/y/traces.jsonl":         {Data: []byte{}},
		"traces.jsonl":                  {Data: []byte{}},
		"otel/dir.jsonl/traces.jsonl/a": {Data: []byte{}},
	}
	got, err := Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"otel/node-a/traces.jsonl", "otel/node-b/traces.jsonl", "otel/traces.jsonl"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Discover = %q, want %q", got, want)
	}
}

func TestReadAllAcrossCollectors(t *testing.T) {
	a := span("a", "100", "200", strAttr("k", "v"), strAttr("dynamo.operation.role", "decode"))
	aReordered := span("a", "100", "200", strAttr("dynamo.operation.role", "decode"), strAttr("k", "v"))
	b := span("b", "300", "250")
	fsys := fstest.MapFS{
		"otel/c1/traces.jsonl": {Data: []byte(record("dynamo", a, b))},
		"otel/c2/traces.jsonl": {Data: []byte(record("dynamo", aReordered) + record("dynamo", b))},
		"otel/c3/traces.jsonl": {Data: []byte{}},
	}
	res, err := ReadAll(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spans) != 1 || res.Spans[0].SpanID != "a" || len(res.Invalid) != 1 || res.Invalid[0].SpanID != "b" {
		t.Fatalf("spans %v invalid %v", res.Spans, res.Invalid)
	}
	wantDups := []Duplicate{
		{Dropped: model.SpanRef{Path: "otel/c2/traces.jsonl", Line: 1, Ordinal: 0}, Kept: model.SpanRef{Path: "otel/c1/traces.jsonl", Line: 1, Ordinal: 0}},
		{Dropped: model.SpanRef{Path: "otel/c2/traces.jsonl", Line: 2, Ordinal: 0}, Kept: model.SpanRef{Path: "otel/c1/traces.jsonl", Line: 1, Ordinal: 1}},
	}
	if !reflect.DeepEqual(res.Duplicates, wantDups) {
		t.Errorf("duplicates = %+v, want %+v", res.Duplicates, wantDups)
	}
	var summary []string
	for _, f := range res.Files {
		summary = append(summary, fmt.Sprintf("%s collector=%s spans=%d invalid=%d dups=%d empty=%v",
			f.Path, f.Collector, f.Spans, f.Invalid, f.Duplicates, f.Empty))
	}
	want := []string{
		"otel/c1/traces.jsonl collector=c1 spans=2 invalid=1 dups=0 empty=false",
		"otel/c2/traces.jsonl collector=c2 spans=2 invalid=0 dups=2 empty=false",
		"otel/c3/traces.jsonl collector=c3 spans=0 invalid=0 dups=0 empty=true",
	}
	if !reflect.DeepEqual(summary, want) {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
}

func TestConflictingDuplicateAcrossFiles(t *testing.T) {
	tests := []struct {
		name, second, diff string
	}{
		{"attribute", span("a", "100", "200", strAttr("k", "changed")), "attributes"},
		{"extra attribute", span("a", "100", "200", strAttr("k", "v"), strAttr("x", "y")), "attributes"},
		{"end", span("a", "100", "201", strAttr("k", "v")), "endTimeUnixNano"},
		{"parent", strings.Replace(span("a", "100", "200", strAttr("k", "v")), `"name"`, `"parentSpanId":"p","name"`, 1), "parentSpanId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"otel/c1/traces.jsonl": {Data: []byte(record("dynamo", span("a", "100", "200", strAttr("k", "v"))))},
				"otel/c2/traces.jsonl": {Data: []byte(record("dynamo", span("z", "1", "2")) + record("dynamo", tt.second))},
			}
			c := &Collector{}
			if err := c.AddFile(fsys, "otel/c1/traces.jsonl"); err != nil {
				t.Fatal(err)
			}
			before := *c.Result()
			before.Spans = append([]model.Span(nil), before.Spans...)
			err := c.AddFile(fsys, "otel/c2/traces.jsonl")
			if !errors.Is(err, ErrConflictingDuplicate) {
				t.Fatalf("err = %v, want a conflicting duplicate", err)
			}
			want := "otel/c2/traces.jsonl:2: conflicting duplicate span: trace \"t1\" span \"a\": " + tt.diff +
				" differs from the copy at otel/c1/traces.jsonl:1#0"
			if err.Error() != want {
				t.Errorf("err = %q\nwant  %q", err, want)
			}
			// A failed file leaves nothing behind, so "z" can be added again.
			if got := c.Result(); !reflect.DeepEqual(got.Spans, before.Spans) || len(got.Files) != 1 {
				t.Errorf("collector changed after a failed Add: %+v", got)
			}
			if err := c.Add("again", strings.NewReader(record("dynamo", span("z", "1", "2")))); err != nil {
				t.Errorf("re-adding after rollback: %v", err)
			}
		})
	}
}

func TestServiceNameIsPartOfIdentity(t *testing.T) {
	c := &Collector{}
	if err := c.Add("a", strings.NewReader(record("dynamo-frontend", span("a", "1", "2")))); err != nil {
		t.Fatal(err)
	}
	err := c.Add("b", strings.NewReader(record("dynamo-worker", span("a", "1", "2"))))
	if !errors.Is(err, ErrConflictingDuplicate) || !strings.Contains(err.Error(), "service.name differs") {
		t.Errorf("err = %v", err)
	}
}

func TestMalformedErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		name, input, want string
		truncated         bool
		limit             int
	}{
		{"garbage", record("s", span("a", "1", "2")) + "not json\n", "f:2: invalid JSON at column 2: invalid character 'o' in literal null", false, 0},
		{"unterminated string", `{"resourceSpans":"` + "\n", `f:1: invalid JSON at column 19: invalid control character byte 0x0a in string`, false, 0},
		{"open object then newline", "\n\n{\"a\":1\n", "f:3: invalid JSON at column 8: the line ends inside a JSON value", false, 0},
		{"truncated tail", record("s", span("a", "1", "2")) + `{"resourceSpans":[`, "f:2: truncated record at end of file: the last line ends after 18 bytes inside a JSON value, without a final newline", true, 0},
		{"truncated number", `{"a":-`, "f:1: truncated record at end of file: the last line ends after 6 bytes inside a JSON value, without a final newline", true, 0},
		{"lone brace document", "{\n", "f:1: truncated record at end of file: the document ends inside a JSON value after 2 bytes", true, 0},
		{"record too long", `{"a":"` + strings.Repeat("x", 100) + `"}` + "\n", "f:1: record longer than 64 bytes", false, 64},
		{"document trailing garbage", "{\n}\nx\n", "f:3: invalid JSON at column 1: invalid character 'x' looking for beginning of value", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Options{MaxRecordBytes: tt.limit}.Decode(strings.NewReader(tt.input), "f", func(*model.Span) error { return nil })
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant  %s", err, tt.want)
			}
			if errors.Is(err, ErrTruncated) != tt.truncated {
				t.Errorf("errors.Is(err, ErrTruncated) = %v", !tt.truncated)
			}
			var le *LineError
			if !errors.As(err, &le) {
				t.Errorf("%T is not a *LineError", err)
			}
		})
	}
}

func TestLongLineAcrossReaderBuffer(t *testing.T) {
	// A record larger than the read buffer still decodes.
	attrs := make([]string, 0, 30000)
	for i := range 30000 {
		attrs = append(attrs, strAttr(fmt.Sprintf("k%d", i), "value"))
	}
	in := record("s", span("a", "1", "2", attrs...)) + record("s", span("b", "3", "4"))
	var got []string
	st, err := Decode(strings.NewReader(in), "f", func(s *model.Span) error {
		got = append(got, fmt.Sprintf("%s@%d attrs=%d", s.SpanID, s.Ref.Line, len(s.Attrs)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a@1 attrs=30000", "b@2 attrs=0"}; !reflect.DeepEqual(got, want) || st.Lines != 2 || st.Bytes != int64(len(in)) {
		t.Errorf("got %v, stats %+v", got, st)
	}
}

func TestExactNanoseconds(t *testing.T) {
	// 2^53+1 is not representable as float64; it must survive exactly.
	in := record("s", span("a", "9007199254740993", "9223372036854775807"))
	var s model.Span
	if _, err := Decode(strings.NewReader(in), "f", func(sp *model.Span) error { s = *sp; return nil }); err != nil {
		t.Fatal(err)
	}
	if s.StartNS != 9007199254740993 || s.EndNS != 9223372036854775807 {
		t.Errorf("times %d %d", s.StartNS, s.EndNS)
	}
}

func TestSpanRole(t *testing.T) {
	tests := []struct {
		attrs   model.Attributes
		service string
		want    string
	}{
		{model.Attributes{{Key: "dynamo.operation.role", Value: model.StringValue("Aggregated")}}, "dynamo-frontend", "agg"},
		{nil, "dynamo-frontend", "frontend"},
		{nil, "dynamo", "unknown"},
		{model.Attributes{{Key: "dynamo.operation.role", Value: model.IntValue(3)}}, "dynamo-frontend", "unknown"},
	}
	for _, tt := range tests {
		s := model.Span{Attrs: tt.attrs, Resource: &model.Resource{Attrs: model.Attributes{{Key: "service.name", Value: model.StringValue(tt.service)}}}}
		if got := s.Role(); got != tt.want {
			t.Errorf("Role(%v, %s) = %q, want %q", tt.attrs, tt.service, got, tt.want)
		}
	}
}

var _ fs.FS = fstest.MapFS{}
