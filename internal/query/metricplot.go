package query

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/dsight/dsight/internal/pyramid"
)

// The chart path. A chart asks only for the series it draws and gets their
// plot columns as one little-endian float64 array (a Float64Array in the
// page), so no per-point JSON is encoded in the engine or parsed in the
// page. "metrics" stays the documented query answer; this is a display
// answer: coincident events are drawn as their median, which "metrics"
// never does.

// PlotRequest asks for the plot columns of the listed series over [From,
// To] (seconds; the whole run when absent) for a chart Pixels wide.
type PlotRequest struct {
	From   *float64 `json:"from,omitempty"`
	To     *float64 `json:"to,omitempty"`
	Pixels int      `json:"pixels"`
	Series []int    `json:"series"`
}

// MaxPlotSeries bounds the series one plot request names.
const MaxPlotSeries = 10000

// Plot flags, per series.
const (
	// PlotExact: the points are every row of the range (before coincident
	// events are merged); otherwise per bucket its recorded min and max.
	PlotExact = 1 << iota
	// PlotEventMedians: the series is event-valued and its points are, per
	// timestamp, the median of the events there (derived when they are
	// several), with Counts saying how many.
	PlotEventMedians
	// PlotCarried: CarriedT/CarriedV hold the setting carried into the range.
	PlotCarried
	// PlotCapacity: the capacity fields hold the series' capacity legend.
	PlotCapacity
	// PlotCarriedConflict: the carried setting's timestamp recorded
	// different values (CarriedV is NaN: no single one is held), listed in
	// CarriedValues (NaN for a null), so a chart draws each.
	PlotCarriedConflict
)

// PlotSeries is one series of a plot answer. Unknown numbers are NaN.
type PlotSeries struct {
	ID       int
	Temporal pyramid.Temporal
	Flags    int
	// BucketSeconds is the bucket width when not PlotExact, else NaN.
	BucketSeconds float64
	// Rows counts the range's rows (samples and gaps), Samples its finite
	// values; Min, Max, Mean (derived), FirstTime and LastTime are over
	// them, as in "metrics".
	Rows, Samples                       int64
	Min, Max, Mean, FirstTime, LastTime float64
	// Last is the last sample; for events, the median of the events at
	// LastTime, LastCount of them (1 otherwise).
	Last      float64
	LastCount int64
	// CarriedT/CarriedV: the setting carried into the range (V NaN when it
	// was cleared), with PlotCarried.
	CarriedT, CarriedV float64
	// CarriedValues: with PlotCarriedConflict, every distinct value
	// recorded at CarriedT, in arrival order.
	CarriedValues []float64
	// Capacity legend, with PlotCapacity; Reference is the limit series id
	// or NaN.
	Capacity  pyramid.Capacity
	Reference float64
	// Times (seconds), Values (NaN for a gap) and, with PlotEventMedians,
	// Counts: the events each point stands for.
	Times, Values, Counts []float64
}

// Plot is a plot answer: the validated range (seconds) and the series.
type Plot struct {
	From, To float64
	Series   []PlotSeries
}

// MetricPlot answers a chart: per requested series, in order, its range
// statistics and plot columns. Every shard it needs must be loaded;
// otherwise it returns an *Error with CodeShardsNeeded listing them.
func (e *Engine) MetricPlot(r PlotRequest) (*Plot, error) {
	return e.metricPlot(r, nil)
}

// metricPlot is MetricPlot taking the point columns of non-event series
// from columns when given (a scratch slice the caller reuses).
func (e *Engine) metricPlot(r PlotRequest, columns *[]float64) (*Plot, error) {
	w, err := e.window(Args{From: r.From, To: r.To})
	if err != nil {
		return nil, err
	}
	if r.Pixels < 1 || r.Pixels > MaxPlotPixels {
		return nil, badArgs("pixels must be from 1 to %d; got %d", MaxPlotPixels, r.Pixels)
	}
	if len(r.Series) > MaxPlotSeries {
		return nil, badArgs("a plot names at most %d series; got %d", MaxPlotSeries, len(r.Series))
	}
	for _, id := range r.Series {
		if id < 0 || id >= len(e.c.Metrics) {
			return nil, notFound("unknown metric series %d", id)
		}
	}
	held, miss := e.claim(r.Series)
	if len(miss) > 0 {
		return nil, shardsNeeded("metric plot", miss)
	}
	defer e.release(held)
	out := &Plot{From: w.from, To: w.to, Series: make([]PlotSeries, 0, len(r.Series))}
	for _, id := range r.Series {
		s, err := e.plotSeries(id, w, r.Pixels, columns)
		if err != nil {
			return nil, fmt.Errorf("metric series %d (%s): %w", id, e.c.Metrics[id].Name, err)
		}
		out.Series = append(out.Series, s)
	}
	return out, nil
}

func (e *Engine) plotSeries(id int, w window, pixels int, columns *[]float64) (PlotSeries, error) {
	m := &e.c.Metrics[id]
	nan := math.NaN()
	s := PlotSeries{ID: id, BucketSeconds: nan, Min: nan, Max: nan, Mean: nan, FirstTime: nan, LastTime: nan,
		Last: nan, CarriedT: nan, CarriedV: nan, Reference: nan}
	p, err := e.pyramidOf(id)
	if err != nil {
		return s, err
	}
	if p == nil {
		return s, errors.New("summary not loaded")
	}
	s.Temporal = p.Temporal()
	v := views.Get().(*pyramid.View)
	defer views.Put(v)
	if err := p.QueryInto(v, w.fromNS, w.toNS, pixels); err != nil {
		return s, err
	}
	st := v.Stats
	s.Rows, s.Samples = st.Count+st.Gaps, st.Count
	if st.Count > 0 {
		s.Min, s.Max, s.Last, s.LastCount = st.Min.V, st.Max.V, st.Last.V, 1
		s.FirstTime, s.LastTime = seconds(st.First.T), seconds(st.Last.T)
		if mean, ok := st.Mean(); ok {
			s.Mean = mean
		}
	}
	if v.Exact {
		s.Flags |= PlotExact
	} else {
		s.BucketSeconds = float64(int64(1)<<v.Shift) / 1e9
	}
	if s.Temporal == pyramid.Event && v.Exact {
		s.Flags |= PlotEventMedians
		s.Times, s.Values, s.Counts = coincidentMedians(v.Times, v.Values, v.Valid)
	} else {
		// Bucket envelopes keep each bucket's recorded min and max, also
		// for events: a median would hide the extremes.
		var nb neighbours
		if s.Temporal == pyramid.Sample && v.Exact {
			var err error
			if nb, err = neighboursOf(p, w); err != nil {
				return s, err
			}
		}
		n := len(v.Times) + nb.count()
		if columns == nil {
			s.Times, s.Values = make([]float64, n), make([]float64, n)
		} else {
			at := len(*columns)
			*columns = slices.Grow(*columns, 2*n)[:at+2*n]
			s.Times, s.Values = (*columns)[at:at+n:at+n], (*columns)[at+n:at+2*n:at+2*n]
		}
		k0 := 0
		if nb.hasBefore {
			s.Times[0], s.Values[0] = nb.before[0], nb.before[1]
			k0 = 1
		}
		for k, t := range v.Times {
			s.Times[k0+k], s.Values[k0+k] = seconds(t), plotValue(v.Values[k], v.Valid[k])
		}
		if nb.hasAfter {
			s.Times[n-1], s.Values[n-1] = nb.after[0], nb.after[1]
		}
	}
	if s.Temporal == pyramid.Event && st.Count > 0 {
		if err := lastEventMedian(p, st.Last.T, &s); err != nil {
			return s, err
		}
	}
	if s.Temporal == pyramid.Setting {
		row, valid, found, err := p.LastAtOrBefore(w.fromNS - 1)
		if err != nil {
			return s, err
		}
		if found {
			s.Flags |= PlotCarried
			s.CarriedT, s.CarriedV = seconds(row.T), plotValue(row.V, valid)
			if err := carriedConflict(p, row.T, valid, &s); err != nil {
				return s, err
			}
		}
	}
	if r := m.Reference; r != nil {
		var lim *pyramid.Pyramid
		if r.SeriesID != nil {
			if lim, err = e.pyramidOf(*r.SeriesID); err != nil {
				return s, err
			}
			s.Reference = float64(*r.SeriesID)
		}
		c, err := pyramid.SummarizeCapacity(p, lim, w.fromNS, w.toNS)
		if err != nil {
			return s, err
		}
		s.Flags |= PlotCapacity
		s.Capacity = c
	}
	return s, nil
}

// views keeps the pyramid views of past plots: a plot of a dozen series
// per zoom would otherwise allocate (and clear) their buckets and columns
// every time.
var views = sync.Pool{New: func() any { return new(pyramid.View) }}

// scratchColumns holds the point columns of a plot until it is encoded.
var scratchColumns = sync.Pool{New: func() any { return new([]float64) }}

func plotValue(v float64, valid bool) float64 {
	if !valid || math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// lastEventMedian sets Last to the median of the events at the last
// timestamp t and LastCount to how many they are. When more events share t
// than one exact view holds, Last stays the recorded last event.
func lastEventMedian(p *pyramid.Pyramid, t int64, s *PlotSeries) error {
	v, err := p.Query(t, t, MaxPlotPixels)
	if err != nil || !v.Exact {
		return err
	}
	_, vals, counts := coincidentMedians(v.Times, v.Values, v.Valid)
	for k := len(vals) - 1; k >= 0; k-- {
		if counts[k] > 0 {
			s.Last, s.LastCount = vals[k], int64(counts[k])
			break
		}
	}
	return nil
}

// coincidentMedians merges rows sharing a timestamp (rows in time order)
// into one point each: the median of its valid values (the mean of the two
// middle ones for an even count) and their count. A timestamp with no valid
// value is a gap (NaN) with count 0. Times are returned in seconds.
func coincidentMedians(times []int64, values []float64, valid []bool) (ts, vs, counts []float64) {
	var group []float64
	for k := 0; k < len(times); {
		j := k
		group = group[:0]
		for ; j < len(times) && times[j] == times[k]; j++ {
			if valid[j] && !math.IsNaN(values[j]) && !math.IsInf(values[j], 0) {
				group = append(group, values[j])
			}
		}
		ts = append(ts, seconds(times[k]))
		vs = append(vs, median(group))
		counts = append(counts, float64(len(group)))
		k = j
	}
	return ts, vs, counts
}

// median of vals (reordered in place); NaN when empty.
func median(vals []float64) float64 {
	n := len(vals)
	switch {
	case n == 0:
		return math.NaN()
	case n == 1:
		return vals[0]
	}
	slices.Sort(vals)
	if n%2 == 1 {
		return vals[n/2]
	}
	return vals[n/2-1]/2 + vals[n/2]/2
}

// PlotHeaderFields and PlotSeriesFields are the float64 counts of the
// encoded header and of each series' fixed part.
const (
	PlotHeaderFields = 4
	PlotSeriesFields = 26
	plotVersion      = 1
)

// EncodePlot lays a plot answer out as little-endian float64s:
//
//	header: version, series count, from, to (seconds)
//	per series: id, temporal (0 sample, 1 event, 2 setting), flags,
//	  bucket seconds, rows, samples, min, max, mean, last, first time,
//	  last time, last count, carried time, carried value, capacity samples,
//	  capacity unavailable, peak time, peak value, limit kind (0
//	  unavailable, 1 constant, 2 changed), limit min, limit max, usage
//	  time, usage value, reference series id, point count n;
//	  then n times, n values and, with PlotEventMedians, n counts.
//
// Unknown numbers are NaN. web/src/metricplot.js decodes it.
func (p *Plot) Encode() []byte { return p.AppendEncoded(nil) }

// AppendEncoded appends Encode's layout to dst.
func (p *Plot) AppendEncoded(dst []byte) []byte {
	series := p.Series
	size := PlotHeaderFields
	for k := range series {
		size += PlotSeriesFields + 3*len(series[k].Times) + 1 + len(series[k].CarriedValues)
	}
	out := slices.Grow(dst, 8*size)
	put := func(x float64) { out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x)) }
	putAll := func(xs []float64) {
		for _, x := range xs {
			put(x)
		}
	}
	put(plotVersion)
	put(float64(len(series)))
	put(p.From)
	put(p.To)
	nan := math.NaN()
	for k := range series {
		s := &series[k]
		c := &s.Capacity
		capOr := func(x float64) float64 {
			if s.Flags&PlotCapacity == 0 {
				return nan
			}
			return x
		}
		peakT, peakV, usageT, usageV, limMin, limMax := nan, nan, nan, nan, nan, nan
		if s.Flags&PlotCapacity != 0 {
			if c.Samples > 0 {
				peakT, peakV = seconds(c.Peak.T), c.Peak.V
			}
			if c.HasUsage {
				usageT, usageV = seconds(c.HighestUsage.T), c.HighestUsage.V
			}
			if c.Limit != pyramid.LimitUnavailable {
				limMin, limMax = c.LimitMin, c.LimitMax
			}
		}
		lastCount := nan
		if s.Samples > 0 {
			lastCount = float64(s.LastCount)
		}
		putAll([]float64{float64(s.ID), float64(s.Temporal), float64(s.Flags), s.BucketSeconds,
			float64(s.Rows), float64(s.Samples), s.Min, s.Max, s.Mean, s.Last, s.FirstTime, s.LastTime, lastCount,
			s.CarriedT, s.CarriedV,
			capOr(float64(c.Samples)), capOr(float64(c.Unavailable)), peakT, peakV, capOr(float64(c.Limit)), limMin, limMax, usageT, usageV,
			s.Reference, float64(len(s.Times))})
		putAll(s.Times)
		putAll(s.Values)
		if s.Flags&PlotEventMedians != 0 {
			putAll(s.Counts)
		}
		if s.Flags&PlotCarriedConflict != 0 {
			put(float64(len(s.CarriedValues)))
			putAll(s.CarriedValues)
		}
	}
	return out
}

// HandlePlot answers one JSON-encoded PlotRequest (the arguments of the
// "plot" op): the encoded plot (Plot.Encode), or else a JSON failure
// envelope, which names the shards to load in "shards" when that is what
// is missing (code shards_needed).
func (e *Engine) HandlePlot(req []byte) (plot []byte, envelope []byte) {
	return e.AppendPlot(nil, req)
}

// AppendPlot is HandlePlot appending the plot to dst.
func (e *Engine) AppendPlot(dst, req []byte) (plot []byte, envelope []byte) {
	raw, rerr := decodeArgsObject(req)
	if rerr != nil {
		return nil, failure(badArgs("bad plot request: %v", rerr))
	}
	op := Lookup("plot")
	a, err := op.decodeArgs(raw, "plot request")
	if err != nil {
		return nil, failure(err)
	}
	out, ok := e.appendBinary(op, dst, a)
	if !ok {
		return nil, out
	}
	return out, nil
}

// appendPlot answers the "plot" op, appending the encoded plot to dst.
func (e *Engine) appendPlot(dst []byte, r PlotRequest) ([]byte, error) {
	columns := scratchColumns.Get().(*[]float64)
	defer func() {
		*columns = (*columns)[:0]
		scratchColumns.Put(columns)
	}()
	answer, err := e.metricPlot(r, columns)
	if err != nil {
		return nil, err
	}
	return answer.AppendEncoded(dst), nil
}
