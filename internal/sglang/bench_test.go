package sglang

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
)

var benchLines = map[string]string{
	"decode":  "[2026-09-24 01:50:43.001 DP0 TP0 EP0] Decode batch [40], #running-req: 1, #token: 532160, token usage: 0.19, accept len: 4.40, accept rate: 0.68, pre-allocated usage: 0.18, #prealloc-req: 0, #transfer-req: 22, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 11.87, #queue-req: 0",
	"prefill": "[2026-09-24 01:47:50.615 DP3 TP3 EP3] Prefill batch [1], #new-seq: 1, #new-token: 64, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, #bootstrap-req: 0, #inflight-req: 1, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 7.29",
	"request": "[2026-01-01 00:00:03 TP0] ReqTimeStats(rid=r, bootstrap_room=7, input_len=100, cached_input_len=40, output_len=1, attempts=0, type=prefill): bootstrap_queue_duration(12.00ms) = bootstrap(10.00ms) + alloc_wait(2.00ms); queue_duration=1.50ms, forward_duration=30.00ms, start=123.456, transfer_speed=1.25GB/s, transfer_total=32.00MB, #retries=0",
	"other":   `[2026-04-05 20:02:51] INFO:     127.0.0.1:40052 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
}

// BenchmarkDecode1M decodes one million lines of each kind per operation.
// Run with: go test ./internal/sglang -run '^$' -bench Decode1M -benchtime 1x
func BenchmarkDecode1M(b *testing.B) {
	const lines = 1_000_000
	for _, kind := range []string{"decode", "prefill", "request", "other"} {
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

// BenchmarkRead measures the whole reader on a 100k-line log mixing batch,
// request and unrelated lines (about a million points).
func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	const n = 100_000
	for i := range n {
		sb.WriteString(benchLines[[]string{"decode", "prefill", "request", "other"}[i%4]])
		sb.WriteByte('\n')
	}
	in := []byte(sb.String())
	src := logmetric.SourceInfo{Path: "bench_agg_w0.out", Worker: "agg-0", Host: "bench", Role: "agg"}
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := logmetric.Read(bytes.NewReader(in), src, time.UTC, Generator{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "lines/s")
}
