package pyramid

// Point is one recorded sample: its timestamp in nanoseconds and its value.
type Point struct {
	T int64
	V float64
}

// Stats summarises the rows of a time range exactly. Min, Max, First and Last
// are real samples (the earliest one on ties) and are meaningful only when
// Count > 0.
type Stats struct {
	// Count is the number of samples with a value; Gaps the number of rows
	// without one (a null, a non-finite value, or conflicting values at one
	// timestamp).
	Count, Gaps int64
	First, Last Point
	Min, Max    Point
	// Sum is derived: the sum of the values, added bucket by bucket. It can
	// differ in the last bits from a sequential sum of the same values.
	Sum float64
}

// Mean is derived: Sum / Count, with Sum's rounding caveat. ok is false when
// there is no sample.
func (s Stats) Mean() (mean float64, ok bool) {
	if s.Count == 0 {
		return 0, false
	}
	return s.Sum / float64(s.Count), true
}

// summary is what a bucket, a range or a row contributes: Stats plus the
// first gap's time and the capacity fields of a series paired with a limit.
type summary struct {
	Stats
	gapT int64 // the first gap row; meaningful when Gaps > 0
	// unavailable counts samples without a valid positive limit at their own
	// time; usage is the highest value / limit among the others (meaningful
	// when Count > unavailable), at that sample's time.
	unavailable int64
	usage       Point
}

func (s *summary) rows() int64 { return s.Count + s.Gaps }

func (s *summary) hasUsage() bool { return s.Count > s.unavailable }

// merge folds b into s. Every row of b comes after every row of s, so ties
// keep s's earlier sample, as a sequential scan would.
func (s *summary) merge(b *summary) {
	if b.Gaps > 0 {
		if s.Gaps == 0 {
			s.gapT = b.gapT
		}
		s.Gaps += b.Gaps
	}
	if b.Count == 0 {
		return
	}
	if s.Count == 0 {
		s.First, s.Min, s.Max = b.First, b.Min, b.Max
	} else {
		if b.Min.V < s.Min.V {
			s.Min = b.Min
		}
		if b.Max.V > s.Max.V {
			s.Max = b.Max
		}
	}
	if b.hasUsage() && (!s.hasUsage() || b.usage.V > s.usage.V) {
		s.usage = b.usage
	}
	s.Last = b.Last
	s.Sum += b.Sum
	s.Count += b.Count
	s.unavailable += b.unavailable
}

// addRow folds in one row that comes after every row already in s. limit is
// the sample's valid positive limit when limitOK.
func (s *summary) addRow(t int64, v float64, valid bool, limit float64, limitOK bool) {
	if !valid {
		if s.Gaps == 0 {
			s.gapT = t
		}
		s.Gaps++
		return
	}
	p := Point{t, v}
	if s.Count == 0 {
		s.First, s.Min, s.Max = p, p, p
	} else {
		if v < s.Min.V {
			s.Min = p
		}
		if v > s.Max.V {
			s.Max = p
		}
	}
	if limitOK {
		u := v / limit
		if !s.hasUsage() || u > s.usage.V {
			s.usage = Point{t, u}
		}
	} else {
		s.unavailable++
	}
	s.Last = p
	s.Sum += v
	s.Count++
}

// foldRows summarises rows [i, j) of an exact chunk into s, which must be
// empty, in one pass; it gives what addRow would, row by row, without a
// store per row. Written in place: a plot folds a few rows per bucket, and
// returning the summary by value cost as much as the fold.
func foldRows(s *summary, c *exactChunk, i, j int) {
	times, values, valid := c.times[:j], c.values[:j], c.valid[:j]
	first, last, lo, hi := -1, -1, -1, -1
	var sum float64
	var count int64
	for k := i; k < j; k++ {
		if !valid[k] {
			if s.Gaps == 0 {
				s.gapT = times[k]
			}
			s.Gaps++
			continue
		}
		v := values[k]
		if first < 0 {
			first, lo, hi = k, k, k
		} else if v < values[lo] {
			lo = k
		} else if v > values[hi] {
			hi = k
		}
		last = k
		sum += v
		count++
	}
	if count == 0 {
		return
	}
	s.Count, s.Sum = count, sum
	s.First, s.Last = Point{times[first], values[first]}, Point{times[last], values[last]}
	s.Min, s.Max = Point{times[lo], values[lo]}, Point{times[hi], values[hi]}
	s.unavailable = count
	if c.limitOK != nil {
		s.unavailable = 0
		found := false
		for k := first; k <= last; k++ {
			if !valid[k] {
				continue
			}
			if !c.limitOK[k] {
				s.unavailable++
				continue
			}
			if u := values[k] / c.limits[k]; !found || u > s.usage.V {
				s.usage, found = Point{times[k], u}, true
			}
		}
	}
}
