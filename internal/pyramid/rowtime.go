package pyramid

import "sort"

// RowTime is the time of the row n places after the first row at or after
// fromNS (n = 0: that row), found false when the series has fewer rows
// from there. It reads the exact chunks holding fromNS and that row only:
// a question listing the first rows of a range finds where they end
// without counting rows over ranges that end inside other chunks. On a
// partly loaded pyramid it is an *IncompleteError naming what it missed.
func (p *Pyramid) RowTime(fromNS, n int64) (t int64, found bool, err error) {
	w := newWalker(p)
	r := w.rankBefore(fromNS)
	if err := w.err(); err != nil {
		return 0, false, err
	}
	if n < 0 || r+n >= p.rows {
		return 0, false, nil
	}
	r += n
	ci := sort.Search(len(p.exact), func(i int) bool { return p.exact[i].start+int64(p.exact[i].rows) > r })
	c := &p.exact[ci]
	if !c.loaded {
		return 0, false, &IncompleteError{Chunks: []int{c.id}}
	}
	return c.times[r-c.start], true, nil
}
