package pyramid

import "sort"

// FirstAtOrAfter returns the first row with time ≥ tNS (valid false: a gap
// row). found is false when no row is that late. With LastAtOrBefore it
// gives a window's neighbouring samples: a chart of a window shorter than
// the sampling interval draws the rows on either side instead of nothing.
func (p *Pyramid) FirstAtOrAfter(tNS int64) (row Point, valid, found bool, err error) {
	w := newWalker(p)
	row, valid, found = w.firstAtOrAfter(tNS)
	if err := w.err(); err != nil {
		return Point{}, false, false, err
	}
	return row, valid, found, nil
}

// firstAtOrAfter is the first row with time ≥ t.
func (w *walker) firstAtOrAfter(t int64) (row Point, valid, found bool) {
	p := w.p
	ci := firstChunkEndingAtOrAfter(len(p.exact), func(i int) int64 { return p.exact[i].last }, t)
	if ci == len(p.exact) {
		return Point{}, false, false
	}
	c := &p.exact[ci]
	if !c.loaded {
		w.miss(c.id)
		return Point{}, false, false
	}
	i := sort.Search(len(c.times), func(i int) bool { return c.times[i] >= t })
	return Point{c.times[i], c.values[i]}, c.valid[i], true
}
