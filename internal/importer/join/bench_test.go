package join_test

import (
	"fmt"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
	"testing"
)

// syntheticRun repeats the fixture's request n times, each with its own
// client id, UUID and trace, plus one Engine ID map per worker.
func syntheticRun(b *testing.B, n int) ([]model.ClientTiming, join.Input) {
	specs := jointest.WriteRunSpecs()
	clients := make([]model.ClientTiming, n)
	in := join.Input{Spans: make([]model.Span, 0, n*len(specs))}
	var prefill, decode []model.EngineMap
	var bridges []model.Bridge
	for i := range n {
		id, uuid := fmt.Sprintf("client-%d", i), fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		base := int64(i) * 10
		clients[i] = model.ClientTiming{ID: id, StartNS: jointest.MS(base), EndNS: jointest.MS(base + 8000), FirstNS: jointest.Ptr(jointest.MS(base + 3000))}
		bridges = append(bridges, jointest.Bridge(id, uuid, "front_frontend_0.out", int64(i+1)))
		for _, s := range specs {
			s.Trace, s.Request, s.Start, s.End = fmt.Sprintf("%032x", i), &uuid, s.Start+base, s.End+base
			in.Spans = append(in.Spans, jointest.MakeSpan(s, len(in.Spans)))
		}
		prefill = append(prefill, jointest.EngineMap(uuid, fmt.Sprint(i), int64(i+1)))
		decode = append(decode, jointest.EngineMap(uuid, fmt.Sprint(i), int64(i+1)))
	}
	in.Bridges = join.NewBridges(bridges)
	in.WorkerLogs = []join.WorkerLog{
		jointest.WorkerLog(b, "decode-host_decode_w0.out", nil, decode),
		jointest.WorkerLog(b, "prefill-host_prefill_w0.out", nil, prefill),
	}
	return clients, in
}

func BenchmarkJoin(b *testing.B) {
	const requests = 10_000
	clients, in := syntheticRun(b, requests)
	b.ResetTimer()
	for b.Loop() {
		if _, err := join.Join(clients, in); err != nil {
			b.Fatal(err)
		}
	}
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/float64(len(in.Spans)), "ns/span")
	b.ReportMetric(float64(len(in.Spans))/(perOp/1e9), "spans/s")
}
