package sglang

import (
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
)

// A batch line cut at the end of the log (no newline: the log was read
// while being written, or truncated) is kept as logged but counted with its
// file:line, since its last value may be short; the same line with its
// newline is not. A ReqTimeStats value that fails validation is counted.
func TestTornLastLineAndRequestFieldsAreCounted(t *testing.T) {
	src := logmetric.SourceInfo{Path: "logs/h_agg_w0.out", Worker: "agg-0", Host: "h", Role: "agg"}
	const lines = "[2026-01-01 00:00:00.100 DP0] Decode batch, #running-req: 3, #queue-req: 0\n" +
		"[2026-01-01 00:00:00.200 DP0] Decode batch, #running-req: 1"
	for _, tc := range []struct {
		in       string
		rejected int
		first    string
	}{
		{lines, 1, "logs/h_agg_w0.out:2: sglang: " + logmetric.TornLastLine},
		{lines + "\n", 0, ""},
		{"[2026-01-01 00:00:00.800 TP0] ReqTimeStats(rid=r, input_len=10, cached_input_len=0, output_len=1, type=prefill): queue_duration=-1.00ms, forward_duration=2.00ms\n", 1,
			`logs/h_agg_w0.out:1: sglang: ReqTimeStats field "queue_duration" has a value that fails validation ("-1.00ms")`},
	} {
		r, err := logmetric.Read(strings.NewReader(tc.in), src, time.UTC, Generator{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Rejected != tc.rejected || r.FirstRejected != tc.first {
			t.Errorf("%q: rejected %d, first %q; want %d, %q", tc.in, r.Rejected, r.FirstRejected, tc.rejected, tc.first)
		}
	}
}
