package query

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// TestStatsOrdersMatchSorting checks that a range answered from the
// precomputed orders is byte for byte the answer sorting gives: equal
// values (the percentile rows' tie order), unknown TTFTs and first tokens,
// failed requests, and ranges of every width.
func TestStatsOrdersMatchSorting(t *testing.T) {
	const n = 3000
	d := &model.Dataset{Meta: model.Meta{Job: "o", OriginNS: 1, Phase: "profiling"}}
	for i := range n {
		start := int64(i) * 1e7
		lat := int64(1e8 * (1 + (i*37)%23)) // 23 distinct latencies: many ties
		req := model.Request{ID: strconv.Itoa(1e6 + i), Session: strconv.Itoa(i % 40), Agent: strconv.Itoa(i % 40),
			StartNS: start, EndNS: start + lat, Status: model.StatusCompleted}
		if i%7 != 0 {
			first, ttft := start+lat/(int64(2+i%3)), float64(lat/int64(2+i%3))/1e6
			req.FirstNS, req.TTFTms = &first, &ttft
		}
		if i%5 != 0 {
			out := int64(10 + i%17)
			req.OutputTokens, req.InputTokens = &out, &out
		}
		switch i % 31 {
		case 3:
			req.Status = model.StatusError
		case 4:
			req.Status = model.StatusCancelled
		}
		d.Requests = append(d.Requests, req)
		d.Meta.DurationNS = max(d.Meta.DurationNS, start+lat)
	}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	dur := seconds(d.Meta.DurationNS)
	ranges := [][2]float64{{0, dur}, {0, dur / 2}, {dur / 3, dur}, {dur * 0.1, dur * 0.9}, {dur * 0.5, dur * 0.51}}
	defer func(f func(int, int) bool) { orderWorthIt = f }(orderWorthIt)
	for _, rg := range ranges {
		q := []byte(`{"op":"stats","args":{"ids":[],"limit":50,"from":` + strconv.FormatFloat(rg[0], 'g', -1, 64) + `,"to":` + strconv.FormatFloat(rg[1], 'g', -1, 64) + `}}`)
		orderWorthIt = func(n, total int) bool { return false }
		sorted := e.Handle(q)
		orderWorthIt = func(n, total int) bool { return n > 0 }
		walked := e.Handle(q)
		if !bytes.Equal(sorted, walked) {
			t.Errorf("range %v: from the orders\n%s\nsorting\n%s", rg, walked, sorted)
		}
		if !bytes.Contains(sorted, []byte(`"p90"`)) || bytes.Contains(sorted, []byte(`"error"`)) {
			t.Fatalf("range %v: not an answer: %.300s", rg, sorted)
		}
	}
}
