package tokenspeed

import (
	"errors"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/logmetric"
)

// A batch snapshot whose counts fail validation says why (the log-metric
// reader counts it), and one whose millisecond field is damaged is an
// invalid timestamp, as in SGLang, not a silently ignored line.
func TestInvalidSnapshotsSayWhy(t *testing.T) {
	for _, tc := range []struct{ line, dropped string }{
		{"[2026-09-17 10:58:39,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: nan, #queue-req: 0", "#running-req has a value"},
		{"[2026-09-17 10:58:39,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: -1, #queue-req: 0", "#running-req has a value"},
		{"[2026-09-17 10:58:39,230  ATTN TP RANK 0] - INFO - Prefill batch. #pages(active/cached/total): 5/3, #queue-req: 0", "#pages(active/cached/total) is not three valid counts (\"5/3\")"},
		{"[2026-09-17 10:58:39,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 2, #pages(active/cached/total): 1/2/x", "#pages(active/cached/total) is not three"},
	} {
		obs, _, err := Generator{}.Decode([]byte(tc.line))
		if err != nil || !strings.HasPrefix(obs.Dropped, tc.dropped) {
			t.Errorf("%s: dropped %q (err %v), want %q", tc.line, obs.Dropped, err, tc.dropped)
		}
	}
	_, _, err := Generator{}.Decode([]byte("[2026-09-17 10:58:39,2x0  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 2"))
	if !errors.Is(err, logmetric.ErrInvalidStamp) {
		t.Fatalf("damaged millisecond field: %v", err)
	}
}
