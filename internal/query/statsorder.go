package query

import (
	"cmp"
	"math"
	"slices"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sessionmetrics"
)

// A wide range's exact percentiles come from orders built once per
// engine: every completed request ranked by latency, by TTFT and by output
// tokens/s. A range then walks an order and keeps the requests it holds,
// which yields its values already sorted (the same values, in the same
// order, as sorting them would) in time linear in the run instead of
// n log n in the range: sorting 100,000 latencies under wasm was most of
// a whole-run answer.

// valueOrder ranks the requests that have one quantity.
type valueOrder struct {
	// rank lists the ranked requests by ascending value, ties by
	// descending index, so that walking it backwards gives the percentile
	// rows' order: slowest first, then by start; val[k] is rank[k]'s value.
	rank []int32
	val  []float64
	// sum is val's sum, added in ascending order as distSorted adds.
	sum float64
}

// statsOrders are the three orders; usable is false when a value is NaN,
// whose place in a sort is not a total order, and ranges then sort.
type statsOrders struct {
	lat, ttft, tps valueOrder
	usable         bool
	prefix         requestPrefix // statsprefix.go
}

// orderWorthIt says whether walking the orders beats sorting n values of
// a run of total requests: a walk visits every ranked request, a sort
// about n·log₂n.
var orderWorthIt = func(n, total int) bool { return n > 0 && n*16 >= total }

// orders builds the statistics orders on first use.
func (e *Engine) orders() *statsOrders {
	e.statsOrderOnce.Do(func() {
		r := e.r
		o := &statsOrders{usable: true}
		qs := [3]*valueOrder{&o.lat, &o.ttft, &o.tps}
		var byReq [3][]float64 // each quantity's value by request
		add := func(k, i int, v float64) {
			if byReq[k] == nil {
				byReq[k] = make([]float64, r.N)
			}
			if math.IsNaN(v) {
				o.usable = false
			}
			byReq[k][i] = v
			qs[k].rank = append(qs[k].rank, int32(i))
		}
		for i := range r.N {
			if r.Status[i] != model.StatusCompleted {
				continue
			}
			start, end := r.Start[i], r.End[i]
			add(0, i, seconds(end-start))
			if valid(r.TTFT.Valid, i) {
				add(1, i, msSeconds(r.TTFT.V[i]))
			}
			if first := r.First.At(i); first != nil && end > *first && valid(r.OutputTokens.Valid, i) {
				add(2, i, float64(r.OutputTokens.V[i])/seconds(end-*first))
			}
		}
		var scratch radixScratch
		for k, q := range qs {
			v := byReq[k]
			if o.usable {
				rankByValue(q.rank, v, &scratch) // statsradix.go
			} else {
				// A NaN has no place in an order the orders' answers use;
				// ranges then sort (the order still needs a total order).
				slices.SortFunc(q.rank, func(a, b int32) int { return cmp.Or(cmp.Compare(v[a], v[b]), cmp.Compare(b, a)) })
			}
			q.val = make([]float64, len(q.rank))
			for j, i := range q.rank {
				q.val[j] = v[i]
				q.sum += v[i]
			}
		}
		o.prefix = e.newRequestPrefix()
		e.statsOrd = o
	})
	return e.statsOrd
}

// bitset marks requests.
type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)        { b[i>>6] |= 1 << (i & 63) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// sorted returns the values of the marked ranked requests, ascending;
// every is true when all of them are marked, and the answer is then the
// order's own values, which the caller must not change.
func (q *valueOrder) sorted(in bitset, n int, every bool) []float64 {
	if every {
		return q.val
	}
	out := make([]float64, 0, n)
	for k, i := range q.rank {
		if in.has(i) {
			out = append(out, q.val[k])
		}
	}
	return out
}

// requestStatsOrdered fills the distributions and the percentile rows of
// the completed requests marked in in (out.Completed of them) from the
// orders.
func (e *Engine) requestStatsOrdered(out *RequestStats, ord *statsOrders, in bitset, limit int) error {
	// Every completed request of the run is in the range (the common
	// whole-run question): the orders' values are the answer as they are.
	every := out.Completed == len(ord.lat.rank)
	lat, ttft, tps := ord.lat.sorted(in, out.Completed, every), ord.ttft.sorted(in, out.Completed, every), ord.tps.sorted(in, out.Completed, every)
	out.Slow.Latency = e.slowRowsWalk(lat, &ord.lat, in, every, limit)
	out.Slow.TTFT = e.slowRowsWalk(ttft, &ord.ttft, in, every, limit)
	if every {
		out.Latency, out.TTFT, out.OutputTokensPerS = distWithSum(lat, ord.lat.sum), distWithSum(ttft, ord.ttft.sum), distWithSum(tps, ord.tps.sum)
	} else {
		out.Latency, out.TTFT, out.OutputTokensPerS = distSorted(lat), distSorted(ttft), distSorted(tps)
	}
	return nil
}

// slowRowsWalk is slowRows from an order. A row's total is how many of the
// range's sorted values vals reach its threshold; its listed requests are
// the first limit of them walking the order from the slowest down, which
// are the first marked requests of the walk (every row's threshold is at
// most the slowest's value), so the walk stops once limit are found.
// every says every ranked request is marked.
func (e *Engine) slowRowsWalk(vals []float64, q *valueOrder, in bitset, every bool, limit int) []SlowRow {
	rows := []SlowRow{}
	if len(vals) == 0 {
		return rows
	}
	for _, p := range SlowPercentiles {
		th, _ := sessionmetrics.Percentile(vals, p)
		k, _ := slices.BinarySearch(vals, th)
		total := len(vals) - k
		rows = append(rows, SlowRow{Percentile: p, Threshold: th, Total: total, Requests: make([]SlowRequest, 0, min(total, limit))})
	}
	floor := floorOf(vals)
	found := 0
	for k := len(q.rank) - 1; k >= 0 && q.val[k] >= floor && found < limit; k-- {
		i, v := q.rank[k], q.val[k]
		if !every && !in.has(i) {
			continue
		}
		found++
		sr := e.slowRequest(int(i))
		for j := range rows {
			if row := &rows[j]; v >= row.Threshold && len(row.Requests) < limit {
				row.Requests = append(row.Requests, sr)
			}
		}
	}
	return rows
}
