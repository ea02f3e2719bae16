package tokenspeed

import (
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
)

// Two different values of one sample at one timestamp in one scope are
// kept and counted as a conflict naming the later line, as the Tachometer
// reader counts them.
func TestConflictingSamplesAreCounted(t *testing.T) {
	log := "[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 4, #queue-req: 1\n" +
		"[2026-09-17 10:58:33,230  ATTN TP RANK 1] - INFO - Decode batch. #running-req: 9, #queue-req: 1\n" +
		"[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 5, #queue-req: 1\n"
	src := logmetric.SourceInfo{Path: "logs/h_decode_w0.out", Worker: "decode-0", Host: "h", Role: "decode"}
	r, err := logmetric.Read(strings.NewReader(log), src, time.UTC, Generator{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Conflicts != 1 || r.FirstConflict != "logs/h_decode_w0.out:3: "+ActiveDecodeRequests {
		t.Fatalf("conflicts %d, first %q", r.Conflicts, r.FirstConflict)
	}
}
