package query

import (
	"strconv"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// BenchmarkStatsRequests answers "stats" for the requests alone over the
// whole of a 100,000-request run, as the percentile rows ask on every range.
func BenchmarkStatsRequests(b *testing.B) {
	d := statsBenchRun(100_000)
	e, err := FromDataset(d)
	if err != nil {
		b.Fatal(err)
	}
	q := []byte(`{"op":"stats","args":{"ids":[],"limit":200}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.Handle(q)
	}
}

// BenchmarkStatsOrders builds the statistics orders of a 100,000-request
// run, which the first statistics answer of a page pays for.
func BenchmarkStatsOrders(b *testing.B) {
	d := statsBenchRun(100_000)
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		e, err := FromDataset(d)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		e.orders()
	}
}

// statsBenchRun is a run of n completed requests with spread latencies,
// TTFTs and token counts.
func statsBenchRun(n int) *model.Dataset {
	d := &model.Dataset{Meta: model.Meta{Job: "b", OriginNS: 1, Phase: "profiling"}}
	for i := range n {
		start := int64(i) * 1e7
		lat := int64(2e8 + (i*7919)%7_800_000_000)
		first, ttft, out := start+lat/10, float64(lat/10)/1e6, int64(10+i%500)
		d.Requests = append(d.Requests, model.Request{ID: strconv.Itoa(1e6 + i), Session: strconv.Itoa(i % 300), Agent: strconv.Itoa(i % 300),
			StartNS: start, EndNS: start + lat, FirstNS: &first, TTFTms: &ttft, OutputTokens: &out, InputTokens: &out, Status: model.StatusCompleted})
		d.Meta.DurationNS = max(d.Meta.DurationNS, start+lat)
	}
	return d
}
