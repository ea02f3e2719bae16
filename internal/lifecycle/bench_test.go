package lifecycle

import (
	"fmt"
	"testing"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/otlp"
)

// syntheticRun repeats the fixture's request n times, each with its own
// client id, UUID and trace, plus one Engine ID map per worker.
func syntheticRun(b *testing.B, n int) ([]ClientRequest, Input) {
	specs := writeRunSpecs()
	clients := make([]ClientRequest, n)
	in := Input{Spans: make([]otlp.Span, 0, n*len(specs))}
	var prefill, decode []dynamolog.EngineMap
	for i := range n {
		id, uuid := fmt.Sprintf("client-%d", i), fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		base := int64(i) * 10
		clients[i] = ClientRequest{ID: id, StartNS: ms(base), EndNS: ms(base + 8000), FirstNS: ptr(ms(base + 3000))}
		in.Bridges = append(in.Bridges, bridge(id, uuid, "front_frontend_0.out", int64(i+1)))
		for _, s := range specs {
			s.trace, s.request, s.start, s.end = fmt.Sprintf("%032x", i), &uuid, s.start+base, s.end+base
			in.Spans = append(in.Spans, makeSpan(s, len(in.Spans)))
		}
		prefill = append(prefill, engineMap(uuid, fmt.Sprint(i), int64(i+1)))
		decode = append(decode, engineMap(uuid, fmt.Sprint(i), int64(i+1)))
	}
	in.WorkerLogs = []WorkerLog{
		workerLog(b, "decode-host_decode_w0.out", nil, decode),
		workerLog(b, "prefill-host_prefill_w0.out", nil, prefill),
	}
	return clients, in
}

func BenchmarkJoin(b *testing.B) {
	const requests = 10_000
	clients, in := syntheticRun(b, requests)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Join(clients, in); err != nil {
			b.Fatal(err)
		}
	}
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/float64(len(in.Spans)), "ns/span")
	b.ReportMetric(float64(len(in.Spans))/(perOp/1e9), "spans/s")
}

func BenchmarkDerive(b *testing.B) {
	j := joinWriteRun(b)
	f := writeRunFrame()
	r := &j.Requests[0]
	for b.Loop() {
		if l := Derive(r, f); !l.Available {
			b.Fatal("unavailable")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(r.Spans)), "ns/span")
}
