package batchobs

import (
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/model"
)

const log = "[TRT-LLM] iter = 12588, global_rank = 0, rank = 0, num_scheduled_requests = 18, kv_cache_util = 0.08, host_step_time = 29.9ms, prev_device_step_time = 28.6ms, timestamp = 2026-09-17 10:58:33\n" +
	"unrelated\n" +
	"iter = 5, global_rank = 0, rank = 0, num_scheduled_requests = x, timestamp = 2026-09-17 10:58:33\n" +
	"\x1b[38;20m[2026-09-17 10:58:33,230  ATTN TP RANK 1] - INFO - Decode batch. #running-req: 4, #pages(active/cached/total): 8/16/4096, page ratio: 0.01, gen throughput (token/s): 32.1, #queue-req: 12 (batch_log.py:151)\x1b[0m\r\n" +
	"[2026-09-17 10:58:30,000  ATTN TP RANK 0] - INFO - Scheduler config: max_batch_size=8\n" +
	"[2026-09-17 10:58:32,5  ATTN TP RANK 0] - INFO - Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, #running-req: 0, #queue-req: 0"

func scan(t *testing.T, loc *time.Location, chunk int) *Result {
	t.Helper()
	s := NewScanner(Source{Path: "logs/h_decode_w0.out", Worker: "decode-0", Host: "h", Role: "decode"}, loc)
	for b := []byte(log); len(b) > 0; {
		n := min(chunk, len(b))
		if _, err := s.Write(b[:n]); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
	return Merge(s.Finish())
}

// TestAlignedWithTimezone: with a zone, every record aligns; the snapshot
// keeps its millisecond precision and attention TP rank, the iteration its
// one-second precision and global rank; evidence names physical lines.
func TestAlignedWithTimezone(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	for _, chunk := range []int{1, 7, 1 << 20} {
		r := scan(t, loc, chunk)
		if len(r.Obs) != 3 || r.Unaligned != 0 || r.Unreadable != 1 || !strings.HasPrefix(r.FirstUnreadable, "logs/h_decode_w0.out:3: ") {
			t.Fatalf("chunk %d: %+v", chunk, r)
		}
		pre, it, snap := r.Obs[0], r.Obs[1], r.Obs[2]
		want := time.Date(2026, 9, 17, 8, 58, 33, 0, time.UTC).UnixNano() // CEST = UTC+2
		if it.Kind != model.BatchTRTLLMIteration || *it.StartNS != want || it.FracDigits != 0 || it.RankKind != model.RankGlobal || it.Evidence.Line != 1 || it.Worker != "decode-0" {
			t.Errorf("iteration %+v", it)
		}
		if snap.Kind != model.BatchTokenSpeedSnapshot || *snap.StartNS != want+230e6 || snap.FracDigits != 3 || *snap.Rank != 1 || snap.RankKind != model.RankAttentionTP ||
			*snap.Ints[model.BatchRunning] != 4 || *snap.Ints[model.BatchQueued] != 12 || *snap.Ints[model.BatchPagesTotal] != 4096 || snap.Evidence.Line != 4 || snap.LocalTime != "2026-09-17 10:58:33,230" {
			t.Errorf("snapshot %+v", snap)
		}
		if *pre.BatchKind != "prefill" || pre.FracDigits != 1 || pre.ResolutionNS() != 1e8 || pre.Ints[model.BatchPagesActive] != nil || pre.Evidence.Line != 6 {
			t.Errorf("prefill %+v", pre)
		}
		if it.Floats[model.BatchPrevDeviceStepMS] == nil || *it.Floats[model.BatchPrevDeviceStepMS] != 28.6 {
			t.Errorf("previous device step not kept as logged: %+v", it.Floats)
		}
	}
}

// TestUnalignedWithoutTimezone: naive timestamps are never guessed: the
// observations are kept with a null start and counted.
func TestUnalignedWithoutTimezone(t *testing.T) {
	r := scan(t, nil, 64)
	if len(r.Obs) != 3 || r.Unaligned != 3 {
		t.Fatalf("%+v", r)
	}
	for _, o := range r.Obs {
		if o.StartNS != nil {
			t.Errorf("aligned without a timezone: %+v", o)
		}
	}
	if r.Obs[0].Evidence.Line != 1 || r.Obs[2].Evidence.Line != 6 {
		t.Errorf("unaligned order is not line order: %+v", r.Obs)
	}
}

// TestClip drops aligned observations outside the window (naming the
// first) and keeps unaligned ones.
func TestClip(t *testing.T) {
	r := scan(t, time.UTC, 1<<20)
	iter := time.Date(2026, 9, 17, 10, 58, 33, 0, time.UTC).UnixNano()
	dropped := r.Clip(iter, iter+int64(time.Second))
	if len(dropped) != 1 || dropped[0].String() != "logs/h_decode_w0.out:6" || len(r.Obs) != 2 {
		t.Fatalf("dropped %v kept %+v", dropped, r.Obs)
	}
	lo, hi, ok := r.Window()
	if !ok || lo != iter || hi != iter+int64(time.Second) {
		t.Errorf("window %d %d %v", lo, hi, ok)
	}
}

// TestLongLine: a line over the bound is skipped and named, and the line
// numbers after it stay physical.
func TestLongLine(t *testing.T) {
	s := NewScanner(Source{Path: "w.out"}, time.UTC)
	s.Write([]byte(strings.Repeat("x", maxLine+1) + "\n"))
	s.Write([]byte("[TRT-LLM] iter = 1, global_rank = 0, rank = 0, timestamp = 2026-09-17 10:58:33\n"))
	r := s.Finish()
	if r.LongLines != 1 || r.FirstLongLine != "w.out:1" || len(r.Obs) != 1 || r.Obs[0].Evidence.Line != 2 {
		t.Fatalf("%+v", r)
	}
}
