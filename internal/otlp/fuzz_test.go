package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/model"
	"os"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that decoding never panics, that what it accepts is
// valid JSON with the same ids, names and times encoding/json reads, that
// errors name a line of the input, and that a cut-off final record is never
// accepted.
func FuzzParse(f *testing.F) {
	for _, input := range goldenInputs(f) {
		data, err := os.ReadFile(input)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t","spanId":"s","startTimeUnixNano":"1","endTimeUnixNano":"2"}],"spans":[]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		var spans []model.Span
		opts := Options{MaxRecordBytes: 1 << 20}
		st, err := opts.Decode(bytes.NewReader(data), "fuzz", func(s *model.Span) error {
			spans = append(spans, *s)
			return nil
		})
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %q is not a LineError", err)
			}
			if le.Line < 1 || le.Line > st.Lines+1 || !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error %q names line %d of %d", err, le.Line, st.Lines)
			}
			return
		}
		if int64(len(spans)) != st.Spans {
			t.Fatalf("emitted %d spans, stats say %d", len(spans), st.Spans)
		}
		want := referenceSpans(t, data, st.Format)
		if len(want) != len(spans) {
			t.Fatalf("decoded %d spans, encoding/json sees %d", len(spans), len(want))
		}
		for i, s := range spans {
			got := refSpan{s.TraceID, s.SpanID, s.Name, itoa(s.StartNS), itoa(s.EndNS), nil}
			if got.ids() != want[i].ids() {
				t.Fatalf("span %d = %+v, encoding/json reads %+v", i, got, want[i])
			}
			if got := attrText(s.Attrs); !slices.Equal(got, want[i].attrs) {
				t.Fatalf("span %d attributes %q, encoding/json reads %q", i, got, want[i].attrs)
			}
			if s.Ref.Line < 1 || s.Ref.Line > st.Lines {
				t.Fatalf("span %d at line %d of %d", i, s.Ref.Line, st.Lines)
			}
		}
		// Cutting the final closing brace must never be accepted.
		trimmed := bytes.TrimRight(data, " \t\r\n")
		if st.Records > 0 && len(trimmed) > 0 && trimmed[len(trimmed)-1] == '}' {
			cut := trimmed[:len(trimmed)-1]
			if _, err := opts.Decode(bytes.NewReader(cut), "fuzz", func(*model.Span) error { return nil }); err == nil {
				t.Fatalf("accepted input cut before its final brace")
			}
		}
	})
}

type refSpan struct {
	trace, span, name, start, end string
	// attrs are the keys and string values of the attributes, in order:
	// what the decoder interns and shares.
	attrs []string
}

func (r refSpan) ids() [5]string { return [5]string{r.trace, r.span, r.name, r.start, r.end} }

// attrText lists each attribute's key and, for a string, its value.
func attrText(attrs model.Attributes) []string {
	var out []string
	for _, a := range attrs {
		v, ok := a.Value.Str()
		if !ok {
			v = ""
		}
		out = append(out, a.Key, v)
	}
	return out
}

// refAttrText is attrText over encoding/json's reading.
func refAttrText(v any) []string {
	var out []string
	for _, a := range list(v) {
		out = append(out, text(member(a, "key")), text(member(member(a, "value"), "stringValue")))
	}
	return out
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// referenceSpans reads the spans of accepted input with encoding/json.
func referenceSpans(t *testing.T, data []byte, format Format) []refSpan {
	var docs [][]byte
	if format == FormatJSONL {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				docs = append(docs, line)
			}
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if err.Error() == "EOF" {
					break
				}
				t.Fatalf("accepted a document encoding/json rejects: %v", err)
			}
			docs = append(docs, raw)
		}
	}
	var out []refSpan
	for _, doc := range docs {
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("accepted a record encoding/json rejects: %v\n%q", err, doc)
		}
		for _, rs := range list(member(v, "resourceSpans")) {
			for _, ss := range list(member(rs, "scopeSpans")) {
				for _, sp := range list(member(ss, "spans")) {
					out = append(out, refSpan{
						text(member(sp, "traceId")), text(member(sp, "spanId")), text(member(sp, "name")),
						number(member(sp, "startTimeUnixNano")), number(member(sp, "endTimeUnixNano")),
						refAttrText(member(sp, "attributes")),
					})
				}
			}
		}
	}
	return out
}

func member(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

func list(v any) []any { l, _ := v.([]any); return l }

func text(v any) string { s, _ := v.(string); return s }

// number reads a decimal string or JSON integer without leading zeros.
func number(v any) string {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case json.Number:
		s = string(v)
	}
	return strings.TrimLeft(s, "0") + zeroIfEmpty(s)
}

// zeroIfEmpty keeps "0" (and "000") reading as 0 after leading zeros are
// trimmed, so numbers compare by value.
func zeroIfEmpty(s string) string {
	if s != "" && strings.TrimLeft(s, "0") == "" {
		return "0"
	}
	return ""
}
