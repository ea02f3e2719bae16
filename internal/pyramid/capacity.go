package pyramid

import "slices"

// LimitKind classifies the valid limit values shown in a range.
type LimitKind uint8

const (
	// LimitUnavailable: no valid limit value in the range.
	LimitUnavailable LimitKind = iota
	// LimitConstant: one distinct value (LimitMin == LimitMax).
	LimitConstant
	// LimitChanged: several distinct values, from LimitMin to LimitMax.
	LimitChanged
)

// Capacity is the capacity legend of an observed series against its limit
// (or pool) over a range: never a time average, never a ratio of unrelated
// maxima.
type Capacity struct {
	// Samples is the number of in-range samples; Peak the highest (the
	// earliest on ties), meaningful when Samples > 0.
	Samples int64
	Peak    Point
	// Limit describes the distinct valid limit values shown in the range; a
	// held setting counts from the range start.
	Limit              LimitKind
	LimitMin, LimitMax float64
	// Unavailable is the number of samples without a valid positive limit at
	// their own time.
	Unavailable int64
	// HighestUsage is the highest value / limit over samples with one, as a
	// fraction, at that sample's time; meaningful when HasUsage.
	HighestUsage Point
	HasUsage     bool
	// Scanned is true when the observed pyramid carried no limits, so every
	// in-range sample was looked up in the limit series.
	Scanned bool
	// Read is what the observed series cost to read.
	Read ReadCost
}

// SummarizeCapacity computes the capacity legend of observed over [fromNS,
// toNS] (inclusive) against limit, its paired limit series (nil when none
// exists in the observed series' scope).
//
// When observed was built with Options.Limit set to this limit, every bucket
// carries its highest usage and unavailable count, so the answer reads whole
// buckets and exact rows only at the two edges and in buckets too small to be
// stored, exactly as Stats does. Otherwise it falls back to reading every
// in-range sample and looking its limit up (Scanned).
//
// The limit at a sample's time is, for a Setting limit, the last limit row at
// or before it, else a limit row at exactly its timestamp; a gap row gives
// none, and only a positive value counts for usage.
func SummarizeCapacity(observed, limit *Pyramid, fromNS, toNS int64) (Capacity, error) {
	var c Capacity
	ow := newWalker(observed)
	var lw *walker
	if limit != nil {
		lw = newWalker(limit)
	}
	switch {
	case limit == nil || observed.hasLimits:
		ow.walk(len(observed.levels)-1, fromNS, toNS)
		s := &ow.acc.total
		c.Samples, c.Peak = s.Count, s.Max
		c.Unavailable, c.HighestUsage, c.HasUsage = s.Count, Point{}, false
		if limit != nil {
			c.Unavailable, c.HighestUsage, c.HasUsage = s.unavailable, s.usage, s.hasUsage()
		}
	default:
		c.Scanned = true
		setting := limit.temporal == Setting
		ow.acc.onRow = func(t int64, v float64, valid bool) {
			if !valid {
				return
			}
			if c.Samples == 0 || v > c.Peak.V {
				c.Peak = Point{t, v}
			}
			c.Samples++
			row, ok, found := lw.lastAtOrBefore(t)
			if !found || !ok || row.V <= 0 || (!setting && row.T != t) {
				c.Unavailable++
				return
			}
			if u := v / row.V; !c.HasUsage || u > c.HighestUsage.V {
				c.HighestUsage, c.HasUsage = Point{t, u}, true
			}
		}
		ow.rows(fromNS, toNS)
	}
	c.Read = ow.cost
	if limit != nil {
		lw.acc = accumulator{}
		lw.walk(len(limit.levels)-1, fromNS, toNS)
		ls := lw.acc.total
		n, lo, hi := ls.Count, ls.Min.V, ls.Max.V
		if limit.temporal == Setting {
			// A setting recorded before the range is shown from its start.
			if row, ok, found := lw.lastAtOrBefore(fromNS); found && ok && row.T < fromNS {
				if n == 0 {
					lo, hi = row.V, row.V
				}
				lo, hi = min(lo, row.V), max(hi, row.V)
				n++
			}
		}
		switch {
		case n == 0:
		case lo == hi:
			c.Limit, c.LimitMin, c.LimitMax = LimitConstant, lo, hi
		default:
			c.Limit, c.LimitMin, c.LimitMax = LimitChanged, lo, hi
		}
	}
	if len(ow.missing) > 0 || (lw != nil && len(lw.missing) > 0) {
		e := &IncompleteError{}
		if err, ok := ow.err().(*IncompleteError); ok {
			e.Chunks = err.Chunks
		}
		if lw != nil {
			if err, ok := lw.err().(*IncompleteError); ok {
				e.Reference = slices.Clone(err.Chunks)
			}
		}
		return Capacity{}, e
	}
	return c, nil
}
