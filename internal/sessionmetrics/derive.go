// Package sessionmetrics owns the session metrics: series computed at build
// time from the client requests (how busy the run was, how fast it
// generated, how slow its requests were), never recorded by any source. It
// is a pure derivation: a dataset in, metric families and series out, each
// marked derived and each defined in words (Definitions) that every surface
// shows.
//
// Warmup requests (phase "warmup", case-insensitive) are left out of every
// series. Per-interval series use fixed intervals measured from the run
// origin ([k·w, (k+1)·w), the last one cut at the run's end) and hold their
// value over the interval (temporal "setting", one row at its start); an
// interval with nothing to report is a null row, never a made-up value.
// Percentiles are nearest-rank over the requests of one interval, computed
// from the requests themselves at every interval width: a coarser interval
// is never an average of finer ones.
//
// Imports: internal/model, internal/pyramid and internal/shard (to encode
// each series' summary as the report stores it).
package sessionmetrics

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/dsight/dsight/internal/model"
)

// IntervalNS is the base interval of the per-interval series: 1 s.
const IntervalNS int64 = 1e9

// PercentileIntervalsNS are the interval widths of the latency and TTFT
// percentile series: 1 s, and coarser ones for a zoomed-out view. A width
// is derived only when the run holds at least two intervals of it.
var PercentileIntervalsNS = []int64{1e9, 10e9, 60e9}

// Percentiles are the per-interval latency and TTFT percentiles.
var Percentiles = []float64{50, 90, 99}

// point is one row of a derived series: its time (ns from origin) and value,
// or a null row (an interval with nothing to report).
type point struct {
	T    int64
	V    float64
	Null bool
}

// series is one derived series before it is summarized.
type series struct {
	family string
	label  string
	labels []model.MetricLabel
	// resolutionNS is the interval width; 0 for a series with a row at
	// every change (in flight).
	resolutionNS int64
	points       []point
	// rows, when set, produces the series' rows instead of points (at most
	// rowCap of them), so a series with a row at every change is written
	// into its summary as it is computed rather than held.
	rows   func(add func(point))
	rowCap int64
}

// each calls add with every row of s.
func (s *series) each(add func(point)) {
	if s.rows != nil {
		s.rows(add)
		return
	}
	for _, p := range s.points {
		add(p)
	}
}

// Excluded reports whether a request is left out of the session metrics:
// warmup requests are.
func Excluded(r *model.Request) bool {
	return r.Phase != nil && strings.EqualFold(*r.Phase, "warmup")
}

// Percentile is the nearest-rank percentile p (0 < p ≤ 100) of sorted, the
// value at rank ⌈p/100 · n⌉: always one of the values, never interpolated.
// ok is false when sorted is empty.
func Percentile(sorted []float64, p float64) (v float64, ok bool) {
	n := len(sorted)
	if n == 0 {
		return 0, false
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1], true
}

// binsOf is the number of intervals of width w covering [0, duration]; the
// run's last instant belongs to the last one.
func binsOf(duration, w int64) int {
	return max(int((duration+w-1)/w), 1)
}

// derive computes every session series of the kept requests over a run of
// duration ns. Requests need not be sorted.
func derive(list []*model.Request, duration int64) []series {
	return deriveRows(collect(list), duration)
}

// deriveRows is derive over the requests' rows.
func deriveRows(rs *reqs, duration int64) []series {
	var out []series
	out = append(out, inFlight(rs)...)
	out = append(out, outcomes(rs.rows, duration)...)
	out = append(out, throughput(rs.rows, duration)...)
	ended := byEnd(rs.rows)
	out = append(out, sizes(rs.rows, ended, duration)...)
	lat, ttft := timed(rs.rows, latencyOf), timed(rs.rows, ttftOf)
	var latBins, ttftBins *binned
	for k, w := range PercentileIntervalsNS {
		if k > 0 && binsOf(duration, w) < 3 {
			continue
		}
		var s []series
		s, latBins = percentiles(famLatency, lat, latBins, duration, w)
		out = append(out, s...)
		s, ttftBins = percentiles(famTTFT, ttft, ttftBins, duration, w)
		out = append(out, s...)
	}
	out = append(out, totals(rs.rows, ended, duration)...)
	return out
}

// binOf is the interval of width w holding t, clamped into the run.
func binOf(t, w int64, bins int) int {
	return min(max(int(t/w), 0), bins-1)
}

// perInterval turns per-interval values into rows: one at each interval's
// start, null where has is false.
func perInterval(vals []float64, has []bool, w int64) []point {
	pts := make([]point, len(vals))
	for k := range vals {
		pts[k] = point{T: int64(k) * w, V: vals[k], Null: has != nil && !has[k]}
	}
	return pts
}

// outcomes counts the requests that ended in an error, or were cancelled,
// per interval of their end, as a rate per second. Every interval of the
// run has a count; zero is a count.
func outcomes(rows []req, duration int64) []series {
	bins := binsOf(duration, IntervalNS)
	errs, cancels := make([]float64, bins), make([]float64, bins)
	for k := range rows {
		switch r := &rows[k]; r.status {
		case statusError:
			errs[binOf(r.end, IntervalNS, bins)]++
		case statusCancelled:
			cancels[binOf(r.end, IntervalNS, bins)]++
		}
	}
	per := float64(IntervalNS) / 1e9
	for k := range errs {
		errs[k] /= per
		cancels[k] /= per
	}
	return []series{
		{family: famOutcomes, label: "errors", labels: []model.MetricLabel{{Key: "status", Value: model.StatusError}}, resolutionNS: IntervalNS, points: perInterval(errs, nil, IntervalNS)},
		{family: famOutcomes, label: "cancellations", labels: []model.MetricLabel{{Key: "status", Value: model.StatusCancelled}}, resolutionNS: IntervalNS, points: perInterval(cancels, nil, IntervalNS)},
	}
}

// ActiveSpan is the time over which a request's output tokens are spread:
// first token → end where the first token is known (first may be nil),
// else start → end (fromStart says which).
func ActiveSpan(start, end int64, first *int64) (from, to int64, fromStart bool) {
	if first != nil && *first >= start && *first <= end {
		return *first, end, false
	}
	return start, end, true
}

// spread adds tokens spread evenly over [a, b) to the per-interval sums; a
// zero-length span puts them all in the interval holding a. Linear in the
// intervals the span covers.
func spread(sum []float64, a, b int64, tokens float64) {
	bins := len(sum)
	if b <= a {
		sum[binOf(a, IntervalNS, bins)] += tokens
		return
	}
	rate := tokens / float64(b-a)
	for k := binOf(a, IntervalNS, bins); k < bins; k++ {
		lo, hi := max(a, int64(k)*IntervalNS), min(b, int64(k+1)*IntervalNS)
		if k == bins-1 {
			hi = b
		}
		if hi <= lo {
			break
		}
		sum[k] += rate * float64(hi-lo)
	}
}

// throughput estimates generation tokens/s (each request's output tokens
// spread over its active span) and prefill tokens/s (each request's prompt
// tokens credited to the interval of its start). Requests without a
// recorded token count add nothing to the estimate.
func throughput(rows []req, duration int64) []series {
	bins := binsOf(duration, IntervalNS)
	gen, genFromStart, prefill := make([]float64, bins), make([]float64, bins), make([]float64, bins)
	anyFromStart := false
	for k := range rows {
		r := &rows[k]
		if r.flags&flagOut != 0 {
			a, b, fromStart := ActiveSpan(r.start, r.end, r.firstNS())
			spread(gen, a, b, float64(r.out))
			if fromStart {
				anyFromStart = true
				spread(genFromStart, a, b, float64(r.out))
			}
		}
		if r.flags&flagIn != 0 {
			prefill[binOf(r.start, IntervalNS, bins)] += float64(r.in)
		}
	}
	per := float64(IntervalNS) / 1e9
	for k := range gen {
		gen[k] /= per
		genFromStart[k] /= per
		prefill[k] /= per
	}
	out := []series{{family: famGeneration, label: "all requests (estimate)", resolutionNS: IntervalNS, points: perInterval(gen, nil, IntervalNS)}}
	if anyFromStart {
		out = append(out, series{family: famGeneration, label: "of which spread from start (first token unknown)",
			labels: []model.MetricLabel{{Key: "spread", Value: "start"}}, resolutionNS: IntervalNS, points: perInterval(genFromStart, nil, IntervalNS)})
	}
	out = append(out, series{family: famPrefill, label: "all requests (estimate)", resolutionNS: IntervalNS, points: perInterval(prefill, nil, IntervalNS)})
	return out
}

// byEnd lists the requests' indices in (end, start) order: the order they
// completed. Requests sharing both keep their given order.
func byEnd(rows []req) []int32 {
	if len(rows) == 0 {
		return nil
	}
	pairs := make([]keyed, 2*len(rows))
	a, b := pairs[:len(rows)], pairs[len(rows):]
	for k := range rows {
		a[k] = keyed{sortableKey(rows[k].start), int32(k)}
	}
	// Stable passes, last key first: by start, then by end.
	a = sortKeyed(a, b)
	for k := range a {
		a[k].key = sortableKey(rows[a[k].idx].end)
	}
	if &a[0] == &pairs[0] {
		a = sortKeyed(a, pairs[len(rows):])
	} else {
		a = sortKeyed(a, pairs[:len(rows)])
	}
	idx := make([]int32, len(rows))
	for k := range a {
		idx[k] = a[k].idx
	}
	return idx
}

// sizes are the per-request sizes: the average prompt and generation tokens
// of the requests completed so far (sampled at the end of every interval in
// which one completed) and the largest single prompt and generation among
// the requests that completed in each interval (null when none did).
// ordered is in byEnd order.
func sizes(rows []req, ordered []int32, duration int64) []series {
	bins := binsOf(duration, IntervalNS)
	maxIn, maxOut := make([]float64, bins), make([]float64, bins)
	hasIn, hasOut := make([]bool, bins), make([]bool, bins)
	var avgIn, avgOut []point
	var sumIn, sumOut, nIn, nOut float64
	for k := 0; k < len(ordered); {
		bin := binOf(rows[ordered[k]].end, IntervalNS, bins)
		changedIn, changedOut := false, false
		for ; k < len(ordered) && binOf(rows[ordered[k]].end, IntervalNS, bins) == bin; k++ {
			r := &rows[ordered[k]]
			if r.status != statusCompleted {
				continue
			}
			if r.flags&flagIn != 0 {
				v := float64(r.in)
				sumIn, nIn, changedIn = sumIn+v, nIn+1, true
				if !hasIn[bin] || v > maxIn[bin] {
					maxIn[bin], hasIn[bin] = v, true
				}
			}
			if r.flags&flagOut != 0 {
				v := float64(r.out)
				sumOut, nOut, changedOut = sumOut+v, nOut+1, true
				if !hasOut[bin] || v > maxOut[bin] {
					maxOut[bin], hasOut[bin] = v, true
				}
			}
		}
		at := min(int64(bin+1)*IntervalNS, duration)
		if changedIn {
			avgIn = append(avgIn, point{T: at, V: sumIn / nIn})
		}
		if changedOut {
			avgOut = append(avgOut, point{T: at, V: sumOut / nOut})
		}
	}
	return []series{
		{family: famAvgSize, label: "prompt tokens", labels: []model.MetricLabel{{Key: "tokens", Value: "prompt"}}, resolutionNS: IntervalNS, points: avgIn},
		{family: famAvgSize, label: "generation tokens", labels: []model.MetricLabel{{Key: "tokens", Value: "generation"}}, resolutionNS: IntervalNS, points: avgOut},
		{family: famMaxSize, label: "prompt tokens", labels: []model.MetricLabel{{Key: "tokens", Value: "prompt"}}, resolutionNS: IntervalNS, points: perInterval(maxIn, hasIn, IntervalNS)},
		{family: famMaxSize, label: "generation tokens", labels: []model.MetricLabel{{Key: "tokens", Value: "generation"}}, resolutionNS: IntervalNS, points: perInterval(maxOut, hasOut, IntervalNS)},
	}
}

// latencyOf is a completed request's latency in seconds, with the interval
// it counts in (its end).
func latencyOf(r *req) (t int64, v float64, ok bool) {
	if r.status != statusCompleted {
		return 0, 0, false
	}
	return r.end, float64(r.end-r.start) / 1e9, true
}

// ttftOf is a completed request's recorded TTFT in seconds, counted in the
// interval of its first token; an unknown TTFT counts nowhere.
func ttftOf(r *req) (t int64, v float64, ok bool) {
	if r.status != statusCompleted || r.flags&flagTTFT == 0 {
		return 0, 0, false
	}
	at := r.start + int64(r.ttftMS*1e6)
	if r.flags&flagFirst != 0 {
		at = r.first
	}
	return at, r.ttftMS / 1e3, true
}

// tv is one request's value and the time that places it in an interval.
type tv struct {
	t int64
	v float64
}

// timed lists value of every request that has one, read once for every
// interval width.
func timed(rows []req, value func(*req) (int64, float64, bool)) []tv {
	out := make([]tv, 0, len(rows))
	for k := range rows {
		if t, v, ok := value(&rows[k]); ok {
			out = append(out, tv{t, v})
		}
	}
	return out
}

// binned is one quantity's values sorted within each interval of width
// w: interval k's are sorted[start[k]:start[k+1]].
type binned struct {
	w      int64
	start  []int
	sorted []float64
}

// percentiles computes the nearest-rank percentiles of the values per
// interval of width w, from the requests of that interval alone. finer,
// when its width divides w, is the same values sorted by a finer interval:
// each interval is then the merge of the finer ones it covers (the same
// values, so the same sorted run) rather than a new sort.
func percentiles(family string, vals []tv, finer *binned, duration, w int64) ([]series, *binned) {
	bins := binsOf(duration, w)
	var b *binned
	if finer != nil && w%finer.w == 0 {
		b = finer.coarsen(w, bins)
	} else {
		b = binValues(vals, w, bins)
	}
	out := make([]series, len(Percentiles))
	for j, p := range Percentiles {
		out[j] = series{family: family, label: percentileLabel(p, w),
			labels:       []model.MetricLabel{{Key: "percentile", Value: pName(p)}, {Key: "interval", Value: intervalName(w)}},
			resolutionNS: w, points: make([]point, bins)}
	}
	for k := range bins {
		vs := b.sorted[b.start[k]:b.start[k+1]]
		for j, p := range Percentiles {
			v, ok := Percentile(vs, p)
			out[j].points[k] = point{T: int64(k) * w, V: v, Null: !ok}
		}
	}
	return out, b
}

// binValues counting-sorts the values by interval, then sorts each.
func binValues(vals []tv, w int64, bins int) *binned {
	start := make([]int, bins+1)
	for _, x := range vals {
		start[binOf(x.t, w, bins)+1]++
	}
	for k := range bins {
		start[k+1] += start[k]
	}
	sorted := make([]float64, len(vals))
	fill := slices.Clone(start[:bins])
	for _, x := range vals {
		b := binOf(x.t, w, bins)
		sorted[fill[b]] = x.v
		fill[b]++
	}
	for k := range bins {
		slices.Sort(sorted[start[k]:start[k+1]])
	}
	return &binned{w: w, start: start, sorted: sorted}
}

// coarsen merges b's intervals into intervals of width w, a multiple of
// b.w. Interval k of width w holds exactly the finer intervals
// [k·m, (k+1)·m) (m = w / b.w): both clamp a time into the run the same
// way, since ⌈d/w⌉ = ⌈⌈d/b.w⌉/m⌉.
func (b *binned) coarsen(w int64, bins int) *binned {
	m := int(w / b.w)
	fine := len(b.start) - 1
	out := &binned{w: w, start: make([]int, bins+1), sorted: make([]float64, len(b.sorted))}
	var tmp []float64
	for k := range bins {
		lo, hi := min(k*m, fine), min((k+1)*m, fine)
		if k == bins-1 {
			hi = fine
		}
		out.start[k+1] = b.start[hi]
		dst := out.sorted[b.start[lo]:b.start[hi]]
		tmp = mergeSorted(dst, tmp, b.sorted, b.start[lo:hi+1])
	}
	return out
}

// mergeSorted merges the sorted runs src[edges[i]:edges[i+1]] into dst
// (len(dst) = their total), pairwise; tmp is scratch space, returned for
// reuse.
func mergeSorted(dst, tmp, src []float64, edges []int) []float64 {
	base := edges[0]
	if cap(tmp) < len(dst) {
		tmp = make([]float64, len(dst))
	}
	tmp = tmp[:len(dst)]
	copy(dst, src[base:edges[len(edges)-1]])
	runs := make([]int, len(edges))
	for i, e := range edges {
		runs[i] = e - base
	}
	a, b := dst, tmp
	for len(runs) > 2 {
		next := runs[:1]
		for i := 0; i+1 < len(runs); i += 2 {
			if i+2 < len(runs) {
				merge2(b[runs[i]:runs[i+2]], a[runs[i]:runs[i+1]], a[runs[i+1]:runs[i+2]])
				next = append(next, runs[i+2])
			} else {
				copy(b[runs[i]:runs[i+1]], a[runs[i]:runs[i+1]])
				next = append(next, runs[i+1])
			}
		}
		runs = next
		a, b = b, a
	}
	if len(dst) > 0 && &a[0] != &dst[0] {
		copy(dst, a)
	}
	return tmp
}

// merge2 merges sorted x and y into dst (len(x) + len(y) long), taking
// from x on ties.
func merge2(dst, x, y []float64) {
	k := 0
	for len(x) > 0 && len(y) > 0 {
		if cmp.Less(y[0], x[0]) { // slices.Sort's order, NaN first
			dst[k], y = y[0], y[1:]
		} else {
			dst[k], x = x[0], x[1:]
		}
		k++
	}
	k += copy(dst[k:], x)
	copy(dst[k:], y)
}

// totals are the running totals, sampled at the end of every interval in
// which they changed: completed requests, generated and prompt tokens of
// the completed requests.
// ordered is in byEnd order.
func totals(rows []req, ordered []int32, duration int64) []series {
	bins := binsOf(duration, IntervalNS)
	// Before anything completes every total is a recorded zero.
	done, gen, prompt := []point{{T: 0}}, []point{{T: 0}}, []point{{T: 0}}
	var nDone, nGen, nPrompt float64
	for k := 0; k < len(ordered); {
		bin := binOf(rows[ordered[k]].end, IntervalNS, bins)
		d, g, p := false, false, false
		for ; k < len(ordered) && binOf(rows[ordered[k]].end, IntervalNS, bins) == bin; k++ {
			r := &rows[ordered[k]]
			if r.status != statusCompleted {
				continue
			}
			nDone, d = nDone+1, true
			if r.flags&flagOut != 0 {
				nGen, g = nGen+float64(r.out), true
			}
			if r.flags&flagIn != 0 {
				nPrompt, p = nPrompt+float64(r.in), true
			}
		}
		at := min(int64(bin+1)*IntervalNS, duration)
		if d {
			done = appendAt(done, point{T: at, V: nDone})
		}
		if g {
			gen = appendAt(gen, point{T: at, V: nGen})
		}
		if p {
			prompt = appendAt(prompt, point{T: at, V: nPrompt})
		}
	}
	return []series{
		{family: famCompleted, label: "completed requests", resolutionNS: IntervalNS, points: done},
		{family: famTotalTokens, label: "generated tokens", labels: []model.MetricLabel{{Key: "tokens", Value: "generation"}}, resolutionNS: IntervalNS, points: gen},
		{family: famTotalTokens, label: "prompt tokens", labels: []model.MetricLabel{{Key: "tokens", Value: "prompt"}}, resolutionNS: IntervalNS, points: prompt},
	}
}

// appendAt appends p, replacing the last row when it has the same time (a
// run shorter than one interval samples its end and its start at once).
func appendAt(pts []point, p point) []point {
	if n := len(pts); n > 0 && pts[n-1].T == p.T {
		pts[n-1] = p
		return pts
	}
	return append(pts, p)
}
