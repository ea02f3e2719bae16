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

// fieldLines are candidate lines shaped as the logs write them: the flat
// JSONL records of a frontend and a worker, a tracing-subscriber record with
// span layers, and a readable frontend line.
var fieldLines = []struct{ name, line string }{
	{"frontend-json", `{"time":"2026-09-17T17:08:27.819512Z","level":"INFO","target":"dynamo_llm::http::service::service_v2","message":"request received","dynamo.request.id":"6060bcd4-860e-47a9-b6ad-a2e7cfe97826","method":"POST","span_id":"170696e472668fa5","span_name":"http-request","trace_id":"cdefa730020301d393a70da106115379","uri":"/v1/chat/completions","version":"HTTP/1.1","x_request_id":"dd8899d4-92ea-4ea8-aada-7731d8767688"}`},
	{"worker-json", `{"time":"2026-09-17T17:08:27.525200Z","level":"INFO","target":"dynamo.request_lifecycle","message":"worker.admission","dynamo.request.id":"e8ad4b05-6183-4bc1-a806-b9a7bde602bf","dynamo.operation.id":"e7db4d7c-c071-4fb1-bc8c-0f573c8388e8","dynamo.operation.role":"prefill","dynamo.instance.id":"node-002","dynamo.process.epoch":"94cad93510f840ca"}`},
	{"layered-json", `{"timestamp":"2026-09-17T10:58:32.000000001Z","level":"INFO","fields":{"message":"request received","dynamo.request.id":"66666666-6666-4666-8666-666666666666"},"target":"dynamo_llm::http::service::service_v2","span":{"method":"POST","uri":"/v1/chat/completions","x_request_id":"11111111-1111-4111-8111-111111111111","name":"http-request"},"spans":[{"method":"POST","uri":"/v1/chat/completions","x_request_id":"11111111-1111-4111-8111-111111111111","name":"http-request"}]}`},
	{"frontend-text", `2026-09-17T17:08:27.519655Z  INFO http-request: dynamo_llm::http::service::service_v2: request received dynamo.request.id=e8ad4b05-6183-4bc1-a806-b9a7bde602bf method=POST uri=/v1/chat/completions version=HTTP/1.1 x_request_id="9f8cca66-9f7b-4d10-a909-72f26605f97a"`},
}

// BenchmarkReadFields reads the identity fields of one candidate line, with
// one reader as a scan uses; encoding-json is the map decoding the package
// used before (the oracle).
func BenchmarkReadFields(b *testing.B) {
	for _, tc := range fieldLines {
		line := []byte(tc.line)
		b.Run(tc.name, func(b *testing.B) {
			var r fieldReader
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := r.readFields(line); !ok {
					b.Fatal("undecodable")
				}
			}
		})
		if line[0] != '{' {
			continue
		}
		b.Run(tc.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := refJSONFields(line); !ok {
					b.Fatal("undecodable")
				}
			}
		})
	}
}
