package tokenspeed

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
)

var benchLines = map[string]string{
	"decode": "\x1b[38;20m[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 4, #pages(active/cached/total): 8/16/4096, page ratio: 0.01, gen throughput (token/s): 32.10, avg_accept_len: 1.00, accept_rate: 0.00, #queue-req: 12 (model_executor.py:512)\x1b[0m",
	"config": "\x1b[38;20m[2026-09-17 10:58:30,000  ATTN TP RANK 0] - INFO - Scheduler config: prefix_granularity=64 num_device_pages=129 max_scheduled_tokens=8192 decode_input_tokens=8 overlap_schedule_depth=1 disable_l2_cache=False max_batch_size=8 (global max_num_seqs=64, dp_size=8) disable_prefix_cache=False prefix_replay_tokens=0 cache_groups=1 (event_loop.py:329)\x1b[0m",
	"other":  "\x1b[38;20m[2026-09-17 10:58:33,230  ATTN TP RANK 0] - INFO - Processing request 7 (handler.py:88)\x1b[0m",
}

// BenchmarkDecode1M decodes one million lines of each kind per operation.
// Run with: go test ./internal/tokenspeed -run '^$' -bench Decode1M -benchtime 1x
func BenchmarkDecode1M(b *testing.B) {
	const lines = 1_000_000
	for _, kind := range []string{"decode", "config", "other"} {
		line := []byte(benchLines[kind])
		b.Run("line="+kind, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)) * lines)
			for b.Loop() {
				for range lines {
					if _, _, err := (Generator{}).Decode(line); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)*lines/b.Elapsed().Seconds(), "lines/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkRead measures the whole reader on a 300k-line decode log.
func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	const n = 300_000
	for i := range n {
		sb.WriteString(benchLines[[]string{"decode", "decode", "other"}[i%3]])
		sb.WriteByte('\n')
	}
	in := []byte(sb.String())
	src := logmetric.SourceInfo{Path: "bench_decode_w0.out", Worker: "decode-0", Host: "bench", Role: "decode"}
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := logmetric.Read(bytes.NewReader(in), src, time.UTC, Generator{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "lines/s")
}
