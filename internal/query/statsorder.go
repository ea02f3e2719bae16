package query

import (
	"cmp"
	"math"
	"slices"

	"github.com/dsight/dsight/internal/model"
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
	// val[i] is request i's value (meaningful only for ranked requests).
	val []float64
	// rank lists the ranked requests by ascending value, ties by
	// descending index, so that walking it backwards gives the percentile
	// rows' order: slowest first, then by start.
	rank []int32
}

// statsOrders are the three orders; usable is false when a value is NaN,
// whose place in a sort is not a total order, and ranges then sort.
type statsOrders struct {
	lat, ttft, tps valueOrder
	usable         bool
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
		add := func(q *valueOrder, i int, v float64) {
			if q.val == nil {
				q.val = make([]float64, r.N)
			}
			if math.IsNaN(v) {
				o.usable = false
			}
			q.val[i] = v
			q.rank = append(q.rank, int32(i))
		}
		for i := range r.N {
			if r.Status[i] != model.StatusCompleted {
				continue
			}
			start, end := r.Start[i], r.End[i]
			add(&o.lat, i, seconds(end-start))
			if valid(r.TTFT.Valid, i) {
				add(&o.ttft, i, r.TTFT.V[i]/1e3)
			}
			if first := r.First.At(i); first != nil && end > *first && valid(r.OutputTokens.Valid, i) {
				add(&o.tps, i, float64(r.OutputTokens.V[i])/seconds(end-*first))
			}
		}
		for _, q := range []*valueOrder{&o.lat, &o.ttft, &o.tps} {
			slices.SortFunc(q.rank, func(a, b int32) int { return cmp.Or(cmp.Compare(q.val[a], q.val[b]), cmp.Compare(b, a)) })
		}
		e.statsOrd = o
	})
	return e.statsOrd
}

// bitset marks requests.
type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)        { b[i>>6] |= 1 << (i & 63) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// sorted returns the values of the marked ranked requests, ascending.
func (q *valueOrder) sorted(in bitset, n int) []float64 {
	out := make([]float64, 0, n)
	for _, i := range q.rank {
		if in.has(i) {
			out = append(out, q.val[i])
		}
	}
	return out
}

// atOrAbove lists the marked ranked requests whose value is at least
// floor, slowest first and then by index: what slowRows ranks.
func (q *valueOrder) atOrAbove(in bitset, floor float64) []slowKV {
	var out []slowKV
	for k := len(q.rank) - 1; k >= 0; k-- {
		i := q.rank[k]
		v := q.val[i]
		if v < floor {
			break
		}
		if in.has(i) {
			out = append(out, slowKV{int(i), v})
		}
	}
	return out
}
