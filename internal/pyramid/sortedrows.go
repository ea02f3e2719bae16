package pyramid

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// Exact percentiles of a wide range need its values sorted. Sorting the
// range's rows on every question cost most of a whole-run "stats" answer
// under wasm (200,000 rows of an in-flight series), so each loaded exact
// chunk keeps its valid values sorted, computed on first use and dropped
// with the chunk: a range then merges the sorted runs of the chunks it
// covers and sorts only its two edge chunks' rows.

// sortedCache holds one sorted run per exact chunk and, last, the whole
// series' (nil: not computed).
// Queries run concurrently, so entries are set atomically; two racing
// readers compute the same run.
type sortedCache []atomic.Pointer[[]float64]

// clearSorted drops the kept runs of exact chunk id and of the whole
// series when the chunk's rows change.
func (p *Pyramid) clearSorted(id int) {
	if id < len(p.sorted) {
		p.sorted[id].Store(nil)
	}
	if all := p.sortedAll(); all != nil {
		all.Store(nil)
	}
	if len(p.whole) == 1 {
		p.whole[0].Store(nil)
	}
}

// Covers says whether [fromNS, toNS] holds every exact row.
func (p *Pyramid) Covers(fromNS, toNS int64) bool {
	return len(p.exact) > 0 && fromNS <= p.exact[0].first && toNS >= p.exact[len(p.exact)-1].last
}

// WholeMemo returns the value a caller computed from every exact row and
// kept with SetWholeMemo, or nil: it is dropped whenever a chunk's rows
// change, so a whole-series answer (range statistics over the whole run)
// is computed once per loaded series.
func (p *Pyramid) WholeMemo() any {
	if len(p.whole) == 1 {
		if v := p.whole[0].Load(); v != nil {
			return *v
		}
	}
	return nil
}

// SetWholeMemo keeps v, computed from every exact row, until a chunk's
// rows change.
func (p *Pyramid) SetWholeMemo(v any) {
	if len(p.whole) == 1 {
		p.whole[0].Store(&v)
	}
}

// sortedAll is the whole series' entry, or nil without a cache.
func (p *Pyramid) sortedAll() *atomic.Pointer[[]float64] {
	if len(p.sorted) != len(p.exact)+1 {
		return nil
	}
	return &p.sorted[len(p.exact)]
}

// SortedValues returns the values of the valid rows with time in
// [fromNS, toNS], ascending in the order slices.Sort gives; the caller
// must not change them (a range covering the whole series is answered
// from a kept run). Every exact chunk the range touches must be loaded.
func (p *Pyramid) SortedValues(fromNS, toNS int64) ([]float64, error) {
	whole := p.Covers(fromNS, toNS)
	all := p.sortedAll()
	if whole && all != nil {
		if s := all.Load(); s != nil {
			return *s, nil
		}
	}
	w := newWalker(p)
	var runs [][]float64
	n := 0
	ci := firstChunkEndingAtOrAfter(len(p.exact), func(i int) int64 { return p.exact[i].last }, fromNS)
	for ; ci < len(p.exact) && p.exact[ci].first <= toNS; ci++ {
		c := &p.exact[ci]
		if !c.loaded {
			w.miss(c.id)
			continue
		}
		var run []float64
		if c.first >= fromNS && c.last <= toNS {
			run = p.sortedChunk(ci)
		} else {
			i, _ := slices.BinarySearch(c.times, fromNS)
			for ; i < len(c.times) && c.times[i] <= toNS; i++ {
				if c.valid[i] {
					run = append(run, c.values[i])
				}
			}
			slices.Sort(run)
		}
		if len(run) > 0 {
			runs = append(runs, run)
			n += len(run)
		}
	}
	if err := w.err(); err != nil {
		return nil, err
	}
	out := mergeRuns(runs, n)
	if whole && all != nil {
		all.Store(&out)
	}
	return out, nil
}

// sortedChunk is exact chunk ci's valid values, sorted.
func (p *Pyramid) sortedChunk(ci int) []float64 {
	if ci < len(p.sorted) {
		if s := p.sorted[ci].Load(); s != nil {
			return *s
		}
	}
	c := &p.exact[ci]
	run := make([]float64, 0, len(c.values))
	for i, v := range c.values {
		if c.valid[i] {
			run = append(run, v)
		}
	}
	slices.Sort(run)
	if ci < len(p.sorted) {
		p.sorted[ci].Store(&run)
	}
	return run
}

// mergeRuns merges sorted runs holding n values in all into one new
// slice, pairwise (log₂ of the runs passes over n values).
func mergeRuns(runs [][]float64, n int) []float64 {
	switch len(runs) {
	case 0:
		return []float64{}
	case 1:
		return slices.Clone(runs[0])
	}
	a, b := make([]float64, 0, n), make([]float64, 0, n)
	for len(runs) > 1 {
		next := runs[:0]
		b = b[:0]
		for k := 0; k < len(runs); k += 2 {
			from := len(b)
			if k+1 == len(runs) {
				// Copied: the next pass writes over the buffer it is in.
				b = append(b, runs[k]...)
			} else {
				b = merge2(b, runs[k], runs[k+1])
			}
			next = append(next, b[from:len(b):len(b)])
		}
		runs = next
		a, b = b, a
	}
	return runs[0]
}

// merge2 appends the merge of sorted x and y to dst.
func merge2(dst, x, y []float64) []float64 {
	for len(x) > 0 && len(y) > 0 {
		if cmp.Less(y[0], x[0]) {
			dst, y = append(dst, y[0]), y[1:]
		} else {
			dst, x = append(dst, x[0]), x[1:]
		}
	}
	return append(append(dst, x...), y...)
}
