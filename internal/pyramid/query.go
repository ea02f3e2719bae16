package pyramid

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// View answers one chart request over [From, To] (nanoseconds, inclusive).
type View struct {
	From, To int64
	Pixels   int
	// Exact: the range holds at most 2×Pixels rows and Times/Values/Valid
	// are those rows. Otherwise Buckets are the non-empty buckets of width
	// 2^Shift ns, the coarsest power of two giving at least two buckets per
	// pixel, clipped to the range.
	Exact   bool
	Shift   int
	Buckets []Bucket
	// Stats are exact over the whole range (Sum and Mean are derived).
	Stats Stats
	// Times, Values and Valid are the columns to plot, in time order: the
	// exact rows, or per bucket its min and max at their own sample times
	// (one point when they coincide) and, when the bucket holds a gap, a gap
	// point at the first gap's time so the line breaks there. Valid false
	// is a gap (uPlot's null). Times strictly increase, except that events
	// can share a timestamp.
	Times  []int64
	Values []float64
	Valid  []bool
	// Sources and Lines are, for an exact view, each row's evidence
	// (evidence.go; -1 unknown); nil for an envelope.
	Sources, Lines []int64
	// Read is what answering the view cost.
	Read ReadCost
}

// Bucket is one time bucket of a view: Start and End (inclusive) are its
// extent clipped to the view, Stats are exact over its rows.
type Bucket struct {
	Start, End int64
	Stats
	// FirstGap is the time of the first gap row, when Gaps > 0.
	FirstGap int64
}

// ReadCost counts the stored buckets and exact rows a query folded in.
type ReadCost struct {
	Buckets, Rows int64
}

// IncompleteError reports chunks a query needed that are not loaded. Load
// them and ask again; the answer is then exact.
type IncompleteError struct {
	Chunks    []int // chunk ids of the queried (observed) pyramid, ascending
	Reference []int // SummarizeCapacity only: chunk ids of the limit pyramid
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("pyramid: %d chunk(s) not loaded", len(e.Chunks)+len(e.Reference))
}

var errPixels = errors.New("pixels must be positive")

// Query answers a chart of [fromNS, toNS] (inclusive) drawn pixels wide.
// It reads O(pixels) stored buckets plus exact rows only where buckets are
// too small to be stored or cut by the range's two edges. On a partly loaded
// pyramid it returns an *IncompleteError naming the chunks it found missing
// together with the rest of Plan's prediction.
func (p *Pyramid) Query(fromNS, toNS int64, pixels int) (*View, error) {
	v := &View{}
	if err := p.QueryInto(v, fromNS, toNS, pixels); err != nil {
		return nil, err
	}
	return v, nil
}

// QueryInto is Query writing into v and reusing its slices, so a chart that
// keeps its View allocates nothing once they are large enough. v's previous
// contents are discarded, also on error.
func (p *Pyramid) QueryInto(v *View, fromNS, toNS int64, pixels int) error {
	*v = View{From: fromNS, To: toNS, Pixels: pixels, Shift: -1,
		Buckets: v.Buckets[:0], Times: v.Times[:0], Values: v.Values[:0], Valid: v.Valid[:0], Sources: v.Sources[:0], Lines: v.Lines[:0]}
	if pixels <= 0 {
		return errPixels
	}
	if fromNS > toNS {
		return fmt.Errorf("range %d..%d ns is reversed", fromNS, toNS)
	}
	w := newWalker(p)
	n := w.rankAtOrBefore(toNS) - w.rankBefore(fromNS)
	if err := w.err(); err != nil {
		return p.withPlan(err, fromNS, toNS, pixels)
	}
	if n <= 2*int64(pixels) {
		v.Exact = true
		v.Times, v.Values, v.Valid = slices.Grow(v.Times, int(n)), slices.Grow(v.Values, int(n)), slices.Grow(v.Valid, int(n))
		w.acc.points = v
		w.rows(fromNS, toNS)
	} else {
		v.Shift = targetShift(fromNS, toNS, pixels)
		w.maxShift = uint(v.Shift)
		w.acc.grouped, w.acc.shift, w.acc.from, w.acc.to = true, uint(v.Shift), fromNS, toNS
		// At most 4 buckets per pixel, plus the partial ones at each edge.
		w.acc.buckets = slices.Grow(v.Buckets, int(min(n, 4*int64(pixels)+2)))
		// Levels wider than the plotted buckets would only be split: start
		// at the widest level that can be used whole (rows when none can).
		w.walk(p.widestLevelAtMost(v.Shift), fromNS, toNS)
		w.acc.flush()
		v.Buckets = w.acc.buckets
	}
	if err := w.err(); err != nil {
		return p.withPlan(err, fromNS, toNS, pixels)
	}
	if !v.Exact {
		v.plotBuckets()
	}
	v.Stats, v.Read = w.acc.total.Stats, w.cost
	return nil
}

// Stats returns the exact statistics of [fromNS, toNS] (inclusive), reading
// whole stored buckets and exact rows only at the two edges and in buckets
// too small to be stored.
func (p *Pyramid) Stats(fromNS, toNS int64) (Stats, ReadCost, error) {
	s, cost, err := p.summarize(fromNS, toNS)
	return s.Stats, cost, err
}

func (p *Pyramid) summarize(fromNS, toNS int64) (summary, ReadCost, error) {
	if fromNS > toNS {
		return summary{}, ReadCost{}, fmt.Errorf("range %d..%d ns is reversed", fromNS, toNS)
	}
	w := newWalker(p)
	w.walk(len(p.levels)-1, fromNS, toNS)
	return w.acc.total, w.cost, w.err()
}

// widestLevelAtMost is the index of the coarsest level with shift ≤ k, or
// -1 when every level is coarser.
func (p *Pyramid) widestLevelAtMost(k int) int {
	li := len(p.levels) - 1
	for li >= 0 && int(p.levels[li].shift) > k {
		li--
	}
	return li
}

// targetShift is the largest k with (to-from+1) / 2^k ≥ 2×pixels (0 when the
// range is narrower than that).
func targetShift(from, to int64, pixels int) int {
	span := uint64(to) - uint64(from) + 1
	q := span / (2 * uint64(pixels))
	if span == 0 { // the whole int64 range: 2^64 / (2×pixels)
		q = (1 << 63) / uint64(pixels)
	}
	if q == 0 {
		return 0
	}
	return bits.Len64(q) - 1
}

// plotBuckets fills the plot columns from the buckets.
func (v *View) plotBuckets() {
	n := 2 * len(v.Buckets)
	v.Times, v.Values, v.Valid = slices.Grow(v.Times, n), slices.Grow(v.Values, n), slices.Grow(v.Valid, n)
	add := func(t int64, x float64, valid bool) {
		v.Times = append(v.Times, t)
		v.Values = append(v.Values, x)
		v.Valid = append(v.Valid, valid)
	}
	for i := range v.Buckets {
		b := &v.Buckets[i]
		gapPending := b.Gaps > 0
		gap := func(before int64) { // the gap point, if it comes before a time
			if gapPending && b.FirstGap < before {
				add(b.FirstGap, 0, false)
				gapPending = false
			}
		}
		if b.Count > 0 {
			lo, hi := b.Min, b.Max
			if hi.T < lo.T {
				lo, hi = hi, lo
			}
			gap(lo.T)
			add(lo.T, lo.V, true)
			if hi.T != lo.T || hi.V != lo.V {
				gap(hi.T)
				add(hi.T, hi.V, true)
			}
		}
		if gapPending {
			add(b.FirstGap, 0, false)
		}
	}
}

// walker folds the pieces covering a time range — whole stored buckets and
// exact rows — into an accumulator, in time order, and records the chunks
// it needed but could not read.
type walker struct {
	p        *Pyramid
	acc      accumulator
	maxShift uint // stored buckets wider than 2^maxShift are split
	cost     ReadCost
	missing  map[int]bool
}

func newWalker(p *Pyramid) *walker { return &walker{p: p, maxShift: 63} }

func (w *walker) miss(id int) {
	if w.missing == nil {
		w.missing = map[int]bool{}
	}
	w.missing[id] = true
}

func (w *walker) err() error {
	if len(w.missing) == 0 {
		return nil
	}
	e := &IncompleteError{}
	for id := range w.missing {
		e.Chunks = append(e.Chunks, id)
	}
	slices.Sort(e.Chunks)
	return e
}

// walk covers [a, b] with level li's stored buckets, splitting those cut by
// the range or wider than maxShift into level li-1, and reads the rows of
// buckets too small to be stored. Below the finest level it reads rows.
func (w *walker) walk(li int, a, b int64) {
	if li < 0 {
		w.rows(a, b)
		return
	}
	l := &w.p.levels[li]
	k := uint(l.shift)
	ka, kb := a>>k, b>>k
	c0 := firstChunkEndingAtOrAfter(len(l.chunks), func(i int) int64 { return l.chunks[i].last }, ka)
	c1 := c0
	complete := true
	for ; c1 < len(l.chunks) && l.chunks[c1].first <= kb; c1++ {
		if !l.chunks[c1].loaded {
			w.miss(l.chunks[c1].id)
			complete = false
		}
	}
	if !complete {
		// Without the buckets, which rows are small is unknown: reading them
		// all could touch the whole range, so wait for the chunk instead.
		return
	}
	cursor := a
	mask := bucketMask(k)
	for ci := c0; ci < c1; ci++ {
		bs := l.chunks[ci].buckets
		i := 0
		if ci == c0 {
			i = sort.Search(len(bs), func(j int) bool { return bs[j].key >= ka })
		}
		for ; i < len(bs) && bs[i].key <= kb; i++ {
			bk := &bs[i]
			s := bk.key << k
			e := s | mask
			if s > cursor && !l.full {
				w.rows(cursor, s-1)
			}
			lo, hi := max(a, s), min(b, e)
			if lo == s && hi == e && k <= w.maxShift {
				w.acc.addBucket(k, bk)
				w.cost.Buckets++
			} else {
				w.walk(li-1, lo, hi)
			}
			if hi >= b {
				return
			}
			cursor = hi + 1
		}
	}
	if !l.full {
		w.rows(cursor, b)
	}
}

// rows folds the exact rows with times in [a, b].
func (w *walker) rows(a, b int64) {
	p := w.p
	ci := firstChunkEndingAtOrAfter(len(p.exact), func(i int) int64 { return p.exact[i].last }, a)
	for ; ci < len(p.exact) && p.exact[ci].first <= b; ci++ {
		c := &p.exact[ci]
		if !c.loaded {
			w.miss(c.id)
			continue
		}
		i, _ := slices.BinarySearch(c.times, a) // the first row ≥ a
		j := i
		if c.last <= b {
			j = len(c.times)
		} else {
			j, _ = slices.BinarySearch(c.times[i:], b+1) // b < c.last, so b+1 does not overflow
			j += i
		}
		w.acc.addRows(c, i, j)
		w.cost.Rows += int64(j - i)
	}
}

// rankBefore is the number of rows with time < t.
func (w *walker) rankBefore(t int64) int64 {
	p := w.p
	ci := firstChunkEndingAtOrAfter(len(p.exact), func(i int) int64 { return p.exact[i].last }, t)
	if ci == len(p.exact) {
		return p.rows
	}
	c := &p.exact[ci]
	if c.first >= t {
		return c.start
	}
	if !c.loaded {
		w.miss(c.id)
		return 0
	}
	return c.start + int64(sort.Search(len(c.times), func(i int) bool { return c.times[i] >= t }))
}

// rankAtOrBefore is the number of rows with time ≤ t.
func (w *walker) rankAtOrBefore(t int64) int64 {
	if t == math.MaxInt64 {
		return w.p.rows
	}
	return w.rankBefore(t + 1)
}

// lastAtOrBefore is the last row with time ≤ t.
func (w *walker) lastAtOrBefore(t int64) (row Point, valid, found bool) {
	p := w.p
	ci := sort.Search(len(p.exact), func(i int) bool { return p.exact[i].first > t })
	if ci == 0 {
		return Point{}, false, false
	}
	c := &p.exact[ci-1]
	if !c.loaded {
		w.miss(c.id)
		return Point{}, false, false
	}
	i := sort.Search(len(c.times), func(i int) bool { return c.times[i] > t }) - 1
	return Point{c.times[i], c.values[i]}, c.valid[i], true
}

// accumulator folds pieces in time order into one total and, when grouped,
// into buckets of width 2^shift clipped to [from, to]; or collects exact rows
// as plot points.
type accumulator struct {
	total    summary
	points   *View
	onRow    func(t int64, v float64, valid bool)
	grouped  bool
	shift    uint
	from, to int64
	cur      summary
	curKey   int64
	open     bool
	buckets  []Bucket
}

func (a *accumulator) addBucket(k uint, b *bucket) {
	if !a.grouped {
		a.total.merge(&b.s)
		return
	}
	a.group(b.key >> (a.shift - k))
	a.cur.merge(&b.s)
}

// addRows folds rows [i, j) of an exact chunk.
func (a *accumulator) addRows(c *exactChunk, i, j int) {
	switch {
	case a.onRow != nil:
		for k := i; k < j; k++ {
			a.onRow(c.times[k], c.values[k], c.valid[k])
		}
	case a.grouped:
		for i < j {
			key := c.times[i] >> a.shift
			k := i + 1
			for k < j && c.times[k]>>a.shift == key {
				k++
			}
			a.group(key)
			if a.cur.rows() == 0 {
				foldRows(&a.cur, c, i, k)
			} else {
				var s summary
				foldRows(&s, c, i, k)
				a.cur.merge(&s)
			}
			i = k
		}
	default:
		if a.points != nil {
			a.points.Times = append(a.points.Times, c.times[i:j]...)
			a.points.Values = append(a.points.Values, c.values[i:j]...)
			a.points.Valid = append(a.points.Valid, c.valid[i:j]...)
			a.points.appendEvidence(c, i, j)
		}
		var s summary
		foldRows(&s, c, i, j)
		a.total.merge(&s)
	}
}

func (a *accumulator) group(key int64) {
	if a.open && key == a.curKey {
		return
	}
	a.flush()
	a.open, a.curKey, a.cur = true, key, summary{}
}

func (a *accumulator) flush() {
	if !a.open {
		return
	}
	a.open = false
	s := a.curKey << a.shift
	a.buckets = append(a.buckets, Bucket{})
	b := &a.buckets[len(a.buckets)-1]
	b.Start, b.End = max(a.from, s), min(a.to, s|bucketMask(a.shift))
	b.Stats, b.FirstGap = a.cur.Stats, a.cur.gapT
	a.total.merge(&a.cur)
}

// LastAtOrBefore returns the last row with time ≤ tNS: the setting held at
// tNS for a Setting series (valid false: a gap row, which clears it). found
// is false when no row is that early. Pass tNS-1 for the last row strictly
// before a time (the reference's carried_setting).
func (p *Pyramid) LastAtOrBefore(tNS int64) (row Point, valid, found bool, err error) {
	w := newWalker(p)
	row, valid, found = w.lastAtOrBefore(tNS)
	if err := w.err(); err != nil {
		return Point{}, false, false, err
	}
	return row, valid, found, nil
}
