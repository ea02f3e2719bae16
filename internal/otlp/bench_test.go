package otlp

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// lifecycleNames are the spans one request records across a frontend, a
// prefill and a decode worker.
var lifecycleNames = [...]struct{ name, role string }{
	{"request.lifecycle", "frontend"}, {"request.preprocessing", "frontend"},
	{"kv_router.select_worker", "frontend"}, {"kv_router.route_request", "frontend"},
	{"kv_router.select_worker", "frontend"}, {"kv_router.route_request", "frontend"},
	{"worker.admission", "prefill"}, {"request.dispatch", "prefill"},
	{"worker.operation.prefill", "prefill"}, {"response.streaming.prefill", "prefill"},
	{"worker.admission", "decode"}, {"request.dispatch", "decode"},
	{"worker.operation.decode", "decode"}, {"response.streaming.decode", "decode"},
	{"response.streaming", "frontend"},
}

// genTraces writes a deterministic collector export of n lifecycle spans
// with perLine spans per record, each carrying Dynamo's common lifecycle
// attributes (about 1.2 KB per span).
func genTraces(n, perLine int) []byte {
	var b bytes.Buffer
	attr := func(k, v string) {
		fmt.Fprintf(&b, `{"key":%q,"value":{"stringValue":%q}}`, k, v)
	}
	base := int64(1789642713000000000)
	for i := 0; i < n; {
		b.WriteString(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"dynamo"}},{"key":"host.name","value":{"stringValue":"node-a"}}]},"scopeSpans":[{"scope":{"name":"dynamo_runtime","version":"1.0.0"},"spans":[`)
		for j := 0; j < perLine && i < n; j, i = j+1, i+1 {
			if j > 0 {
				b.WriteByte(',')
			}
			req := i / len(lifecycleNames)
			def := lifecycleNames[i%len(lifecycleNames)]
			start := base + int64(i)*1_000_003
			fmt.Fprintf(&b, `{"traceId":"%032x","spanId":"%016x","parentSpanId":"%016x","name":%q,"kind":1,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[`,
				req, i+1, req*len(lifecycleNames)+1, def.name, start, start+int64(i%997)*10_000)
			rid := fmt.Sprintf("%08x-2222-4222-8222-%012x", req, req)
			attr("dynamo.request.id", rid)
			b.WriteByte(',')
			attr("dynamo.operation.id", fmt.Sprintf("%08x-3333-4333-8333-%012x", req, i))
			b.WriteByte(',')
			attr("dynamo.operation.role", def.role)
			b.WriteByte(',')
			attr("dynamo.lifecycle.schema", "v1")
			b.WriteByte(',')
			attr("dynamo.lifecycle.profile", "generic.v1")
			b.WriteByte(',')
			attr("dynamo.lifecycle.mode", "core")
			b.WriteByte(',')
			attr("dynamo.component", "worker")
			b.WriteByte(',')
			attr("dynamo.instance.id", def.role+"-host")
			b.WriteByte(',')
			attr("dynamo.process.epoch", "epoch-"+def.role)
			b.WriteByte(',')
			attr("dynamo.lifecycle.identity.state", "complete")
			b.WriteString(`,{"key":"dynamo.request.attempt","value":{"intValue":"1"}}`)
			b.WriteString(`],"status":{"code":1}}`)
		}
		b.WriteString("]}]}]}\n")
	}
	return b.Bytes()
}

// BenchmarkDecode reports decode throughput over a generated export of
// 100k spans, batched as a collector writes them and one per line.
func BenchmarkDecode(b *testing.B) {
	const spans = 100_000
	for _, perLine := range []int{100, 1} {
		b.Run("format=otlpjson/spans=100k/per_line="+strconv.Itoa(perLine), func(b *testing.B) {
			data := genTraces(spans, perLine)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var c Collector
				if err := c.Add("traces.jsonl", bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
				if got := len(c.Result().Spans); got != spans {
					b.Fatalf("decoded %d spans", got)
				}
			}
			b.ReportMetric(float64(spans)*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
			b.ReportMetric(float64(len(data))/spans, "B/span")
		})
	}
}

func TestGeneratedTracesDecode(t *testing.T) {
	data := genTraces(1000, 100)
	var c Collector
	if err := c.Add("gen", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	res := c.Result()
	if len(res.Spans) != 1000 || len(res.Files) != 1 || res.Files[0].Records != 10 {
		t.Fatalf("spans %d files %+v", len(res.Spans), res.Files)
	}
	// The lifecycle vocabulary lives with the derivation; the generated
	// spans must still carry its names and the role they are labelled by.
	if sp := res.Spans[14]; !lifecycleName(sp.Name) || len(sp.Attrs) == 0 {
		t.Errorf("span 14 (%s) is not a lifecycle activity", sp.Name)
	}
}

func lifecycleName(name string) bool {
	for _, p := range []string{"request.preprocessing", "kv_router.select_worker", "worker.admission", "worker.operation.", "request.dispatch", "response.streaming"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
