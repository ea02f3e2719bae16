package pyramid

import "slices"

// EachRow calls f for every exact row with time in [fromNS, toNS], in time
// order (valid false: a gap row). Range statistics that must be exact at
// any zoom (percentiles, time-weighted means) read the rows themselves;
// every exact chunk the range touches must be loaded.
func (p *Pyramid) EachRow(fromNS, toNS int64, f func(t int64, v float64, valid bool)) error {
	return p.EachRun(fromNS, toNS, func(times []int64, values []float64, valid []bool) {
		for i, t := range times {
			f(t, values[i], valid[i])
		}
	})
}

// EachRun is EachRow a run of rows at a time: f gets, per exact chunk the
// range touches, the times, values and validity of its rows in the range,
// which it must not change. A call per row was most of a whole-series
// statistics answer under wasm.
func (p *Pyramid) EachRun(fromNS, toNS int64, f func(times []int64, values []float64, valid []bool)) error {
	w := newWalker(p)
	ci := firstChunkEndingAtOrAfter(len(p.exact), func(i int) int64 { return p.exact[i].last }, fromNS)
	for ; ci < len(p.exact) && p.exact[ci].first <= toNS; ci++ {
		c := &p.exact[ci]
		if !c.loaded {
			w.miss(c.id)
			continue
		}
		i, _ := slices.BinarySearch(c.times, fromNS)
		j := i
		if c.last <= toNS {
			j = len(c.times)
		} else {
			j, _ = slices.BinarySearch(c.times, toNS+1)
		}
		if j > i {
			f(c.times[i:j], c.values[i:j], c.valid[i:j])
		}
	}
	return w.err()
}
