package query

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/sessionmetrics"
)

// PercentileMethod says how every percentile of a "stats" answer is
// computed: exactly, from every value in the range, at any zoom.
const PercentileMethod = "nearest rank: the value at rank ⌈p/100 · n⌉ of the n sorted values in the range (always one of them, never interpolated or averaged)"

// SlowPercentiles are the percentile rows the page shows above the sessions.
var SlowPercentiles = []float64{90, 95, 99}

// Dist is the distribution of one quantity over a range: Samples values
// behind every number; all null when there are none.
type Dist struct {
	Samples int      `json:"samples"`
	Min     *float64 `json:"min"`
	Max     *float64 `json:"max"`
	Mean    *float64 `json:"mean"`
	P50     *float64 `json:"p50"`
	P90     *float64 `json:"p90"`
	P99     *float64 `json:"p99"`
}

// SlowRequest is one request of a percentile row.
type SlowRequest struct {
	ID       string   `json:"id"`
	Session  string   `json:"session"`
	Start    float64  `json:"start"`
	End      float64  `json:"end"`
	LatencyS float64  `json:"latency_s"`
	TTFTs    *float64 `json:"ttft_s"`
}

// SlowRow holds the completed requests at or beyond one percentile of a
// quantity (latency or TTFT), slowest first.
type SlowRow struct {
	Percentile float64       `json:"percentile"`
	Threshold  float64       `json:"threshold_s"`
	Total      int           `json:"total"`
	Requests   []SlowRequest `json:"requests"`
}

// RequestStats are the statistics of the requests overlapping a range.
type RequestStats struct {
	Count     int `json:"count"`
	Completed int `json:"completed"`
	Errors    int `json:"errors"`
	Cancelled int `json:"cancelled"`
	// Latency (end − start) and TTFT are over the completed requests; an
	// unknown TTFT is counted in TTFTUnknown, never as zero.
	Latency     Dist `json:"latency_s"`
	TTFT        Dist `json:"ttft_s"`
	TTFTUnknown int  `json:"ttft_unknown"`
	// OutputTokensPerS is per completed request: output tokens over first
	// token → end (requests without both are left out).
	OutputTokensPerS Dist `json:"output_tokens_per_s"`
	// GenerationTokensPerS and PrefillTokensPerS estimate the range's
	// throughput as the session metrics do: output tokens spread over
	// each request's active span, prompt tokens at its start.
	GenerationTokensPerS *float64 `json:"generation_tokens_per_s"`
	PrefillTokensPerS    *float64 `json:"prefill_tokens_per_s"`
	// Slow are the percentile rows: by latency and by TTFT.
	Slow struct {
		Latency []SlowRow `json:"latency"`
		TTFT    []SlowRow `json:"ttft"`
	} `json:"slow"`
}

// SeriesStats are the statistics of one metric series over a range.
type SeriesStats struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Label    string `json:"label"`
	Unit     string `json:"unit"`
	Temporal string `json:"temporal"`
	Derived  bool   `json:"derived,omitempty"`
	// Samples counts the values in the range behind min, max, the
	// percentiles and a plain mean; Gaps the rows without a value.
	Samples int64    `json:"samples"`
	Gaps    int64    `json:"gaps"`
	Min     *float64 `json:"min"`
	Max     *float64 `json:"max"`
	Mean    *float64 `json:"mean"`
	// MeanKind is "time_weighted" for settings and gauges (each value held
	// until the next row, a value set before the range included, a gap
	// holding none) and "plain" for events; a range without a sample has
	// no mean (null), whatever value it holds.
	MeanKind string `json:"mean_kind"`
	// MeanSeconds is how much of the range a time-weighted mean covers;
	// Carried says a value from before the range is part of it.
	MeanSeconds *float64 `json:"mean_seconds,omitempty"`
	Carried     bool     `json:"carried,omitempty"`
	P50         *float64 `json:"p50"`
	P90         *float64 `json:"p90"`
	P99         *float64 `json:"p99"`
}

// StatsAnswer is the answer of "stats".
type StatsAnswer struct {
	Range            [2]float64    `json:"range"`
	PercentileMethod string        `json:"percentile_method"`
	Requests         RequestStats  `json:"requests"`
	SeriesTotal      int           `json:"series_total"`
	Series           []SeriesStats `json:"series"`
}

// dist computes a Dist of vals, which it sorts.
func dist(vals []float64) Dist {
	slices.Sort(vals)
	return distSorted(vals)
}

// distSorted computes a Dist of vals, sorted ascending.
func distSorted(vals []float64) Dist {
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	return distWithSum(vals, sum)
}

// distWithSum is distSorted of vals whose sum, added in ascending order, is
// known.
func distWithSum(vals []float64, sum float64) Dist {
	d := Dist{Samples: len(vals)}
	if len(vals) == 0 {
		return d
	}
	pct := func(p float64) *float64 { v, _ := sessionmetrics.Percentile(vals, p); return &v }
	d.Min, d.Max, d.Mean = fptr(vals[0]), fptr(vals[len(vals)-1]), fptr(sum/float64(len(vals)))
	d.P50, d.P90, d.P99 = pct(50), pct(90), pct(99)
	return d
}

// stats answers "stats": for the requests overlapping the range (and
// passing the worker filter) counts, latency, TTFT and tokens/s and the
// percentile rows; for the matched metric series (name, worker, series
// ids; every series when none is given, none for an empty list of ids) count, min, max, mean and
// percentiles, all exact from every row in the range. Every shard the
// series need must be loaded (shards_needed names them otherwise).
func (e *Engine) stats(a Args) (*StatsAnswer, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	_, limit := page(a)
	idx := e.statsSeries(a)
	held, miss := e.claim(idx)
	if len(miss) > 0 {
		return nil, shardsNeeded("stats", miss)
	}
	defer e.release(held)
	out := &StatsAnswer{Range: w.json(), PercentileMethod: PercentileMethod, SeriesTotal: len(idx), Series: []SeriesStats{}}
	if err := e.requestStats(&out.Requests, Args{Worker: a.Worker}, w, limit); err != nil {
		return nil, err
	}
	for _, i := range idx {
		s, err := e.seriesStats(i, w)
		if err != nil {
			return nil, fmt.Errorf("metric series %d (%s): %w", i, e.c.Metrics[i].Name, err)
		}
		out.Series = append(out.Series, s)
	}
	return out, nil
}

// statsSeries lists the series a stats question covers, at most MaxLimit.
func (e *Engine) statsSeries(a Args) []int {
	idx := []int{}
	if a.IDs != nil {
		for _, id := range a.IDs {
			if id >= 0 && id < len(e.c.Metrics) && !slices.Contains(idx, id) {
				idx = append(idx, id)
			}
		}
		slices.Sort(idx)
		if a.Name != nil || a.Worker != nil {
			keep := e.matchSeries(Args{Name: a.Name, Worker: a.Worker})
			idx = slices.DeleteFunc(idx, func(i int) bool { _, ok := slices.BinarySearch(keep, i); return !ok })
		}
	} else {
		idx = e.matchSeries(Args{Name: a.Name, Worker: a.Worker})
	}
	return idx[:min(len(idx), MaxLimit)]
}

func (e *Engine) requestStats(out *RequestStats, filter Args, w window, limit int) error {
	match, all, err := e.matcherAll(filter, w)
	if err != nil {
		return err
	}
	r := e.r
	// Sized for every request the overlap scan may visit: growing these
	// slices was most of an answer's cost.
	lo, _, hi := e.overlapBounds(w)
	n := max(hi-lo, 0)
	// A wide range walks the precomputed orders instead of sorting.
	var ord *statsOrders
	var in bitset
	if orderWorthIt(n, r.N) {
		if ord = e.orders(); ord.usable {
			in, n = newBitset(r.N), 0
		} else {
			ord = nil
		}
	}
	acc := requestAcc{out: out, w: w}
	if ord != nil && all {
		acc.addWide(e, &ord.prefix, in, lo, hi)
		acc.finish()
		return e.requestStatsOrdered(out, ord, in, limit)
	}
	lat, ttft, tps, done := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]int, 0, n)
	// The overlap scan of eachOverlapping, inlined: a call per request
	// was a large part of a whole-run answer under wasm.
	for i := lo; i < r.N && r.Start[i] <= w.toNS; i++ {
		if r.End[i] < w.fromNS || !all && !match(i) || !acc.add(e, i) {
			continue
		}
		if ord != nil {
			in.set(i)
			if !valid(r.TTFT.Valid, i) {
				out.TTFTUnknown++
			}
			continue
		}
		start, end, first := r.Start[i], r.End[i], r.First.At(i)
		done = append(done, i)
		lat = append(lat, seconds(end-start))
		if valid(r.TTFT.Valid, i) {
			ttft = append(ttft, msSeconds(r.TTFT.V[i]))
		} else {
			out.TTFTUnknown++
		}
		if first != nil && end > *first && valid(r.OutputTokens.Valid, i) {
			tps = append(tps, float64(r.OutputTokens.V[i])/seconds(end-*first))
		}
	}
	acc.finish()
	if ord != nil {
		return e.requestStatsOrdered(out, ord, in, limit)
	}
	out.Slow.Latency = e.slowRows(done, lat, func(i int) (float64, bool) { return seconds(r.End[i] - r.Start[i]), true }, limit)
	out.Slow.TTFT = e.slowRows(done, ttft, func(i int) (float64, bool) {
		if !valid(r.TTFT.Valid, i) {
			return 0, false
		}
		return msSeconds(r.TTFT.V[i]), true
	}, limit)
	out.Latency, out.TTFT, out.OutputTokensPerS = dist(lat), dist(ttft), dist(tps)
	return nil
}

// slowRows builds the percentile rows of one quantity: for each of
// SlowPercentiles, the requests whose value is at or beyond that
// percentile's value, slowest first (then by start, id), up to limit.
// vals, the values of reqs, are sorted in place.
func (e *Engine) slowRows(reqs []int, vals []float64, value func(i int) (float64, bool), limit int) []SlowRow {
	rows := []SlowRow{}
	if len(vals) == 0 {
		return rows
	}
	slices.Sort(vals)
	// Only the requests at or beyond the lowest percentile are ranked.
	floor := floorOf(vals)
	var all []slowKV
	for _, i := range reqs {
		if v, ok := value(i); ok && v >= floor {
			all = append(all, slowKV{i, v})
		}
	}
	slices.SortFunc(all, func(a, b slowKV) int { return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.i, b.i)) })
	return e.slowRowsOf(vals, all, limit)
}

// slowKV is a request and its value for the percentile rows.
type slowKV struct {
	i int
	v float64
}

// floorOf is the lowest percentile row's threshold of sorted vals.
func floorOf(vals []float64) float64 {
	floor, ok := sessionmetrics.Percentile(vals, SlowPercentiles[0])
	if !ok {
		return math.Inf(1)
	}
	return floor
}

// slowRowsOf builds the percentile rows from the sorted values and the
// requests at or beyond the lowest threshold, slowest first.
func (e *Engine) slowRowsOf(vals []float64, all []slowKV, limit int) []SlowRow {
	rows := []SlowRow{}
	if len(vals) == 0 {
		return rows
	}
	for _, p := range SlowPercentiles {
		th, _ := sessionmetrics.Percentile(vals, p)
		row := SlowRow{Percentile: p, Threshold: th, Requests: []SlowRequest{}}
		for _, x := range all {
			if x.v < th {
				break
			}
			row.Total++
			if len(row.Requests) < limit {
				row.Requests = append(row.Requests, e.slowRequest(x.i))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// slowRequest is request i as a percentile row lists it.
func (e *Engine) slowRequest(i int) SlowRequest {
	r := e.r
	sr := SlowRequest{ID: r.ID[i], Session: r.SessionOf(i), Start: seconds(r.Start[i]), End: seconds(r.End[i]), LatencyS: seconds(r.End[i] - r.Start[i])}
	if valid(r.TTFT.Valid, i) {
		sr.TTFTs = fptr(msSeconds(r.TTFT.V[i]))
	}
	return sr
}

// seriesStats computes one series' statistics over the range from its rows.
func (e *Engine) seriesStats(i int, w window) (SeriesStats, error) {
	m := &e.c.Metrics[i]
	s := SeriesStats{ID: i, Name: m.Name, Label: m.Label, Unit: m.Unit, Temporal: m.Temporal, Derived: m.Derived, MeanKind: "time_weighted"}
	p, err := e.pyramidOf(i)
	if err != nil {
		return s, err
	}
	if p == nil {
		return s, fmt.Errorf("summary not loaded")
	}
	weighted := m.Temporal != "event"
	if !weighted {
		s.MeanKind = "plain"
	}
	// The value held at the range's start, for a time-weighted mean.
	var cur float64
	curOK := false
	since := w.fromNS
	if weighted {
		row, ok, found, err := p.LastAtOrBefore(w.fromNS - 1)
		if err != nil {
			return s, err
		}
		if found && ok {
			cur, curOK, s.Carried = row.V, true, true
		}
	}
	hw := heldWalk{cur: cur, curOK: curOK, since: since, fromCarry: s.Carried}
	var vals []float64
	var sum float64
	// A range holding every row (the whole run) answers from what the
	// first such question kept: the walk does not depend on where before
	// the first row the range starts, only its last held value on where it ends.
	whole := p.Covers(w.fromNS, w.toNS)
	if m, ok := p.WholeMemo().(*wholeSeries); whole && ok {
		hw, vals, sum = m.walk, m.vals, m.sum
	} else {
		if err := hw.run(p, w); err != nil {
			return s, err
		}
		// Sorted from the chunks' cached runs: sorting a wide range's rows
		// on every question was most of its cost.
		v, err := p.SortedValues(w.fromNS, w.toNS)
		if err != nil {
			return s, err
		}
		vals = v
		for _, x := range vals {
			sum += x
		}
		if whole {
			p.SetWholeMemo(&wholeSeries{walk: hw, vals: vals, sum: sum})
		}
	}
	s.Gaps = hw.gaps
	area, covered, carriedNS := hw.area, hw.covered, hw.carriedNS
	if hw.curOK && w.toNS > hw.since {
		area += hw.cur * float64(w.toNS-hw.since)
		covered += w.toNS - hw.since
		if hw.fromCarry {
			carriedNS += w.toNS - hw.since
		}
	}
	s.Carried = carriedNS > 0
	d := distWithSum(vals, sum)
	s.Samples = int64(d.Samples)
	s.Min, s.Max, s.P50, s.P90, s.P99 = d.Min, d.Max, d.P50, d.P90, d.P99
	switch {
	case !weighted:
		s.Mean = d.Mean
	case covered > 0 && d.Samples > 0:
		// A value only held from before the range, with no sample in it,
		// is no mean of the range: unknown, as min, max and percentiles.
		s.Mean = fptr(area / float64(covered))
		s.MeanSeconds = fptr(seconds(covered))
	}
	return s, nil
}

// msSeconds turns a recorded TTFT in milliseconds into seconds, rounded to
// the nanosecond the clients record: dividing the binary value by 1e3
// alone prints 0.5963699419999999 for a recorded 596.369942 ms.
func msSeconds(ms float64) float64 { return math.Round(ms*1e6) / 1e9 }

// heldWalk is a time-weighted mean's walk over a range's rows: each value
// held from its row until the next (a gap row holding none), starting
// from the value held at the range's start.
type heldWalk struct {
	area               float64
	covered, carriedNS int64
	gaps, since        int64
	cur                float64
	curOK, fromCarry   bool
}

// run walks the rows of w, up to the last one (the caller holds its value
// to the range's end).
func (h *heldWalk) run(p *pyramid.Pyramid, w window) error {
	return p.EachRun(w.fromNS, w.toNS, func(times []int64, values []float64, valid []bool) {
		for k, t := range times {
			if h.curOK && t > h.since {
				h.area += h.cur * float64(t-h.since)
				h.covered += t - h.since
				if h.fromCarry {
					h.carriedNS += t - h.since
				}
			}
			h.since, h.fromCarry = t, false
			if !valid[k] {
				h.gaps++
				h.curOK = false
				continue
			}
			h.cur, h.curOK = values[k], true
		}
	})
}

// wholeSeries is what a series' whole-run statistics keep (WholeMemo).
type wholeSeries struct {
	walk heldWalk
	vals []float64
	sum  float64
}
