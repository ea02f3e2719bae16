package sglang

import (
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
)

// Batch lines and request records this reader recognises but cannot keep
// whole (a NaN, negative, fractional or overflowing count, a rank named
// twice or too long, a torn ReqTimeStats) are counted with the first
// file:line, never dropped without a word.
func TestValidationLossesAreCounted(t *testing.T) {
	lines := []string{
		"[2026-01-01 00:00:00.100 DP0] Decode batch, #running-req: 3, #queue-req: 0",        // kept
		"[2026-01-01 00:00:00.200 DP0] Decode batch, #running-req: nan, #queue-req: 1",      // partly
		"[2026-01-01 00:00:00.300 DP0] Decode batch, #running-req: -4",                      // whole
		"[2026-01-01 00:00:00.400 DP0] Decode batch, #running-req: 2.5",                     // whole
		"[2026-01-01 00:00:00.500 DP0] Decode batch, #running-req: 99999999999999999999999", // whole
		"[2026-01-01 00:00:00.600 DP0 DP1] Decode batch, #running-req: 1",                   // repeated rank
		"[2026-01-01 00:00:00.700 DP0 TP1234567890] Decode batch, #running-req: 1",          // overflowing rank
		"[2026-01-01 00:00:00.800 TP0] ReqTimeStats(rid=r, input_len=10, type=prefill",      // torn
	}
	src := logmetric.SourceInfo{Path: "logs/h_agg_w0.out", Worker: "agg-0", Host: "h", Role: "agg"}
	r, err := logmetric.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), src, time.UTC, Generator{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Rejected != 7 || !strings.HasPrefix(r.FirstRejected, "logs/h_agg_w0.out:2: sglang: field \"#running-req\"") {
		t.Fatalf("rejected %d, first %q", r.Rejected, r.FirstRejected)
	}
	if r.Conflicts != 0 {
		t.Fatalf("SGLang batch values are events, never conflicts: %d", r.Conflicts)
	}
}
