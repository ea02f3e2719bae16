package importer

import (
	"strings"
	"testing"
)

// A file's shape is told from its first non-blank line, even when the head
// cuts that line short.
func TestShapeOfHead(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"\n\n" + `{"resourceSpans":[{"resource":{}}]}`, shapeOTel},
		{`{"metadata":{"x_request_id":"a"},"metrics":{"ttft":` + strings.Repeat("1", headBytes), shapeAIPerf},
		{`{"phase_idx":0,"start_time":1.5,"end_time":2}`, shapeAgent},
		{`{"time":"2026-01-01T00:00:00Z","level":"INFO","target":"x","fields":{}}`, shapeDynamo},
		{"2026-09-17T10:58:31Z INFO started\n", shapeText},
		{`{"a":1,"b":[2]}`, shapeJSONRest},
		{"", shapeNone},
	} {
		h := &head{}
		h.Write([]byte(tc.text))
		if got, _ := shapeOf(h); got != tc.want {
			t.Errorf("%.40q: %q, want %q", tc.text, got, tc.want)
		}
	}
	h := &head{}
	h.Write([]byte(`{"x\u202e":1,"y":2}`))
	if got := foreign(h, shapeOTel, true); got != `its records are JSON objects with keys "x\u202e", "y"` {
		t.Fatalf("keys from the input are quoted: %s", got)
	}
}
