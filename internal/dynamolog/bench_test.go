package dynamolog

import (
	"bytes"
	"fmt"
	"testing"
)

// genFrontendLog writes a deterministic frontend log of n lines: per
// request, seven lines without identities (readable and JSON), a readable
// bridge, a JSON span event carrying only x_request_id, and a JSON bridge.
func genFrontendLog(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		req := i / 10
		ts := fmt.Sprintf("2026-09-17T10:%02d:%02d.%06dZ", req/3600%60, req/60%60, i%1_000_000)
		client := fmt.Sprintf("%08x-1111-4111-8111-%012x", req, req)
		server := fmt.Sprintf("%08x-2222-4222-8222-%012x", req, req)
		switch i % 10 {
		case 0:
			fmt.Fprintf(&b, "%s  INFO http-request{method=POST uri=/v1/chat/completions version=HTTP/1.1 x_request_id=%q}: dynamo_llm::http::service::metrics: request received dynamo.request.id=%s\n", ts, client, server)
		case 1:
			fmt.Fprintf(&b, `{"time":%q,"level":"INFO","file":"/workspace/lib/runtime/src/logging.rs","line":248,"target":"dynamo_runtime::logging","message":"SPAN_CREATED","method":"POST","span_id":"6959a1b2d1ee41a5","span_name":"http-request","trace_id":"425ef761ca5b44c795b4c912f1d84b39","uri":"/v1/chat/completions","version":"HTTP/1.1","x_request_id":%q}`+"\n", ts, client)
		case 2:
			fmt.Fprintf(&b, `{"time":%q,"level":"INFO","target":"dynamo.request_lifecycle","message":"bridge","x_request_id":%q,"dynamo.request.id":%q}`+"\n", ts, client, server)
		case 3, 5, 7:
			fmt.Fprintf(&b, "%s  INFO dynamo_llm::kv_router::scheduler: Selected worker: worker_type=decode, worker_id=7587888160958627596 dp_rank=0, logit=-0.123, cached_blocks=12, tree_size=1024, total_blocks=4096\n", ts)
		default:
			fmt.Fprintf(&b, `{"time":%q,"level":"INFO","target":"log","message":"Scheduler config values: {'max_num_seqs': 256, 'max_num_batched_tokens': 2048}","log.file":"/opt/dynamo/venv/lib/python3.12/site-packages/dynamo/vllm/main.py","log.line":268,"log.target":"main.get_engine_cache_info"}`+"\n", ts)
		}
	}
	return b.Bytes()
}

// BenchmarkScanFrontend reports the scan rate over a generated 1M-line
// frontend log in which 3 of every 10 lines name x_request_id.
func BenchmarkScanFrontend(b *testing.B) {
	const lines = 1_000_000
	data := genFrontendLog(lines)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		log, err := ScanFrontend(bytes.NewReader(data), "front_frontend_0.out")
		if err != nil {
			b.Fatal(err)
		}
		if log.Lines != lines || len(log.Bridges) != lines/10 {
			b.Fatalf("lines %d bridges %d", log.Lines, len(log.Bridges))
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func TestGeneratedFrontendLog(t *testing.T) {
	log, err := ScanFrontend(bytes.NewReader(genFrontendLog(100)), "gen")
	if err != nil {
		t.Fatal(err)
	}
	if log.Candidates != 30 || len(log.Bridges) != 10 || log.Unbridged != 10 {
		t.Fatalf("%+v", log)
	}
	for _, br := range log.Bridges {
		if br.Repeats != 1 || br.ClientAmbiguous || br.ServerConflict || br.Time == nil || br.Time.UnixNS == nil {
			t.Fatalf("%+v", br)
		}
	}
}
