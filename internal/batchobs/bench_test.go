package batchobs

import (
	"bytes"
	"strconv"
	"testing"
	"time"
)

// BenchmarkScan reads a worker log of TRT-LLM v4 records, TokenSpeed
// snapshots and unrelated lines, as the importer's tee feeds it (64 KiB
// writes). Reported per line: go test -bench Scan -benchmem ./internal/batchobs
func BenchmarkScan(b *testing.B) {
	var log bytes.Buffer
	const lines = 30_000
	for i := range lines / 3 {
		sec := strconv.Itoa(10 + i%50)
		log.WriteString("[05/20/2026-08:01:02] [TRT-LLM] [I] iter = " + strconv.Itoa(i) + ", global_rank = 0, rank = 0, num_scheduled_requests = 3, kv_cache_util = 0.125, currank_total_requests = 3/3, host_step_time = 5.5ms, prev_device_step_time = 6.25ms, timestamp = 2026-05-20 08:01:" + sec + ", states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 3, 'cached_kv_tokens': 96}\n")
		log.WriteString("\x1b[38;20m[2026-05-20 08:01:" + sec + ",230  ATTN TP RANK 0] - INFO - Decode batch. #running-req: 4, #pages(active/cached/total): 8/16/4096, page ratio: 0.01, gen throughput (token/s): 32.1, #queue-req: 12 (batch_log.py:151)\x1b[0m\n")
		log.WriteString(`{"time":"2026-05-20T08:01:02.000001Z","level":"INFO","target":"dynamo.request_lifecycle","message":"worker.admission"}` + "\n")
	}
	in := log.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewScanner(Source{Path: "w.out", Worker: "decode-0"}, time.UTC)
		for p := in; len(p) > 0; {
			n := min(64<<10, len(p))
			s.Write(p[:n])
			p = p[n:]
		}
		if r := s.Finish(); len(r.Obs) != 2*lines/3 {
			b.Fatalf("%d observations", len(r.Obs))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/lines, "ns/line")
}
