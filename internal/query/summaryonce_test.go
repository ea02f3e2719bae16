package query

import (
	"fmt"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// tracedFixture is n traced requests, each naming two workers, with no
// evidence records (the summary reads only the core's request_server rows).
func tracedFixture(n int) *model.Dataset {
	d := fixture()
	d.Meta.OTelEnabled = true
	d.Requests = nil
	for i := range n {
		d.Requests = append(d.Requests, model.Request{
			ID: fmt.Sprintf("r%06d", i), Session: fmt.Sprintf("s%d", i%7), Agent: fmt.Sprintf("s%d", i%7),
			StartNS: int64(i), EndNS: int64(i) + s, Status: "completed", Evidence: model.Ref{Line: int64(i + 1)},
			Server: &model.RequestServer{Workers: []string{"decode-0", fmt.Sprintf("prefill-%d", i%3)}, SpanCount: 2},
		})
	}
	return d
}

// describe() is asked by scripts before every other question: on a traced
// report its answer must not walk the requests each time. The allocations
// of one summary stay the same at 100 and 5,000 traced requests.
func TestSummaryCostDoesNotGrowWithRequests(t *testing.T) {
	allocs := func(n int) float64 {
		e, err := FromDataset(tracedFixture(n))
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Summary().Counts.Workers; got != 4 {
			t.Fatalf("%d requests: counts.workers = %d, want 4", n, got)
		}
		return testing.AllocsPerRun(20, func() { e.Summary() })
	}
	small, large := allocs(100), allocs(5000)
	if large > small+2 {
		t.Fatalf("a summary allocates %.0f times at 5,000 traced requests, %.0f at 100: it walks the requests on every call", large, small)
	}
}

// BenchmarkSummaryTraced is the engine side of describe() on a traced
// report of 100,000 requests (run it under wasm as BenchmarkLifecycleAnswer
// in cmd/build says).
func BenchmarkSummaryTraced(b *testing.B) {
	e, err := FromDataset(tracedFixture(100000))
	if err != nil {
		b.Fatal(err)
	}
	q := []byte(`{"op":"summary","args":{}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.Handle(q)
	}
}
