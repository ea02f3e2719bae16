package batchobs

import (
	"strings"
	"testing"
)

// A snapshot kept with a field that fails validation, and a recognised
// last line without its newline (a log cut while it was written), are
// counted with the first file:line, never kept without a word.
func TestRejectedAndTornLinesAreCounted(t *testing.T) {
	const in = "[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 4, #queue-req: nan\n" +
		"[2026-09-17 10:58:34,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 4, #queue-req: 1\n" +
		"[2026-09-17 10:58:35,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 1"
	s := NewScanner(Source{Path: "logs/h_decode_w0.out", Worker: "decode-0", Host: "h", Role: "decode"}, nil)
	if _, err := s.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	r := Merge(s.Finish())
	if len(r.Obs) != 3 {
		t.Fatalf("kept %d observations, want 3 (a partly invalid or torn line is kept as logged)", len(r.Obs))
	}
	if r.Rejected != 2 || r.FirstRejected != "logs/h_decode_w0.out:1: #queue-req has a value that fails validation" {
		t.Fatalf("rejected %d, first %q", r.Rejected, r.FirstRejected)
	}
	s = NewScanner(Source{Path: "logs/h_decode_w0.out"}, nil)
	_, _ = s.Write([]byte(in[strings.IndexByte(in, '\n')+1:]))
	if r := s.Finish(); r.Rejected != 1 || !strings.HasPrefix(r.FirstRejected, "logs/h_decode_w0.out:2: the last line has no newline") {
		t.Fatalf("torn last line: rejected %d, first %q", r.Rejected, r.FirstRejected)
	}
	s = NewScanner(Source{Path: "logs/h_decode_w0.out"}, nil)
	_, _ = s.Write([]byte(in + "\n"))
	if r := s.Finish(); r.Rejected != 1 {
		t.Fatalf("a terminated last line is not torn: rejected %d (%q)", r.Rejected, r.FirstRejected)
	}
}
