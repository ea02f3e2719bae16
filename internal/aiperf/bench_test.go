package aiperf

import (
	"bytes"
	"strconv"
	"testing"
)

// syntheticExport builds a current-schema export shaped like real AIPerf
// output: ~300-element inter_chunk_latency arrays dominate the bytes.
func syntheticExport(rows int) []byte {
	var b bytes.Buffer
	const start = int64(1759813207532900363)
	for i := range rows {
		s := start + int64(i)*1_000_000
		b.WriteString(`{"metadata":{"session_num":`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`,"x_request_id":"7609a2e7-aa53-4ab1-98f4-`)
		b.WriteString(strconv.FormatInt(100000000000+int64(i), 10))
		b.WriteString(`","x_correlation_id":"32ee4f33-cfca-4cfc-988f-79b45408b909","conversation_id":"77aa5b0e-b305-423f-88d5-c00da1892599","turn_index":0,"request_start_ns":`)
		b.WriteString(strconv.FormatInt(s, 10))
		b.WriteString(`,"request_ack_ns":`)
		b.WriteString(strconv.FormatInt(s+117830613, 10))
		b.WriteString(`,"request_end_ns":`)
		b.WriteString(strconv.FormatInt(s+2305864241, 10))
		b.WriteString(`,"worker_id":"worker_359d423a","record_processor_id":"record_processor_1fa47cd7","benchmark_phase":"profiling","was_cancelled":false,"cancellation_time_ns":null},"metrics":{"input_sequence_length":{"value":550,"unit":"tokens"},"time_to_first_token":{"value":255.88656799999998,"unit":"ms"},"request_latency":{"value":2305.864241,"unit":"ms"},"output_token_count":{"value":300,"unit":"tokens"},"inter_chunk_latency":{"value":[`)
		for j := range 300 {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(4.5+float64((i*31+j*17)%1000)/997, 'g', -1, 64))
		}
		b.WriteString(`],"unit":"ms"},"output_sequence_length":{"value":300,"unit":"tokens"},"inter_token_latency":{"value":5.2048325,"unit":"ms"},"usage_prompt_cache_read_tokens":{"value":512,"unit":"tokens"}},"error":null}` + "\n")
	}
	return b.Bytes()
}

func BenchmarkParse(b *testing.B) {
	const rows = 10_000
	data := syntheticExport(rows)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Parse(bytes.NewReader(data), Options{File: "bench.jsonl"})
		if err != nil || len(res.Requests) != rows {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(len(data))/rows, "bytes/row")
}
