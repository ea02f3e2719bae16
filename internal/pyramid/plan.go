package pyramid

import "slices"

// Plan lists the chunks not yet loaded that Query(fromNS, toNS, pixels) is
// expected to read, judged from the index and the chunks already loaded, so
// a page can fetch them in few rounds: the exact chunks at the two edges (to
// count the range's rows); all exact chunks in range when the range may hold
// at most 2×pixels rows (or there is no level); and, once it surely holds
// more, the level chunks in range from the plotted level up plus the chunks
// holding the two edges in the finer levels. Rows of buckets too small to be
// stored can only be located once their level is loaded, so Query may still
// name further chunks in an IncompleteError; load them and ask again. A view
// typically needs one round when narrow and two or three when wide.
func (p *Pyramid) Plan(fromNS, toNS int64, pixels int) []int {
	if pixels <= 0 || fromNS > toNS {
		return nil
	}
	need := map[int]bool{}
	// The range's row count lies between the rows of the exact chunks wholly
	// inside it and those of all chunks it overlaps; it is known exactly once
	// the (at most two) chunks at its edges are loaded.
	var inside, overlapping int64
	var overlap []int
	edgesLoaded := true
	for i := range p.exact {
		c := &p.exact[i]
		if c.last < fromNS || c.first > toNS {
			continue
		}
		overlapping += int64(c.rows)
		overlap = append(overlap, i)
		if c.first >= fromNS && c.last <= toNS {
			inside += int64(c.rows)
		} else {
			need[c.id] = true
			edgesLoaded = edgesLoaded && c.loaded
		}
	}
	lo, hi := inside, overlapping
	if edgesLoaded {
		w := newWalker(p)
		lo = w.rankAtOrBefore(toNS) - w.rankBefore(fromNS)
		hi = lo
	}
	maxExact := 2 * int64(pixels)
	if lo <= maxExact || len(p.levels) == 0 {
		for _, i := range overlap {
			need[p.exact[i].id] = true
		}
	}
	// Level chunks only once the range surely holds too many rows to plot
	// exactly: a narrow view loads no summary at all.
	if lo > maxExact || edgesLoaded && hi > maxExact {
		p.planLevels(need, fromNS, toNS, targetShift(fromNS, toNS, pixels))
	}
	return p.unloaded(need)
}

// PlanStats lists the chunks not yet loaded that Stats(fromNS, toNS) is
// expected to read: every level's chunks at the two edges, the coarsest
// level's chunks in range, and the exact chunks at the edges (all exact
// chunks in range when there is no level).
func (p *Pyramid) PlanStats(fromNS, toNS int64) []int {
	if fromNS > toNS {
		return nil
	}
	need := map[int]bool{}
	p.planLevels(need, fromNS, toNS, 63)
	return p.unloaded(need)
}

// PlanCapacity lists the chunks SummarizeCapacity is expected to read, for
// the observed and the limit pyramid.
func PlanCapacity(observed, limit *Pyramid, fromNS, toNS int64) (obs, lim []int) {
	obs = observed.PlanStats(fromNS, toNS)
	if limit == nil {
		return obs, nil
	}
	need := map[int]bool{}
	for _, id := range limit.PlanStats(fromNS, toNS) {
		need[id] = true
	}
	// The setting held at the range start.
	for i := range limit.exact {
		if limit.exact[i].first <= fromNS && (i+1 == len(limit.exact) || limit.exact[i+1].first > fromNS) {
			need[limit.exact[i].id] = true
		}
	}
	return obs, limit.unloaded(need)
}

// planLevels adds the chunks a walk plotting at shift w reads: from the
// coarsest level usable whole, all chunks in range; below it, the chunks
// holding the two edges, down to the exact rows; with no usable level, every
// exact chunk in range.
func (p *Pyramid) planLevels(need map[int]bool, from, to int64, w int) {
	whole := p.widestLevelAtMost(w)
	if whole < 0 {
		for i := range p.exact {
			if c := &p.exact[i]; c.last >= from && c.first <= to {
				need[c.id] = true
			}
		}
		return
	}
	for li := 0; li <= whole; li++ {
		l := &p.levels[li]
		k := uint(l.shift)
		ka, kb := from>>k, to>>k
		for i := range l.chunks {
			c := &l.chunks[i]
			if c.last < ka || c.first > kb {
				continue
			}
			atEdge := c.first <= ka && ka <= c.last || c.first <= kb && kb <= c.last
			if li == whole || atEdge {
				need[c.id] = true
			}
		}
	}
	p.planRowsAt(need, from)
	p.planRowsAt(need, to)
}

func (p *Pyramid) planRowsAt(need map[int]bool, t int64) {
	for i := range p.exact {
		if c := &p.exact[i]; c.first <= t && t <= c.last {
			need[c.id] = true
		}
	}
}

// withPlan adds Plan's prediction to a query's IncompleteError, so that a
// caller loading what the error names converges in few rounds.
func (p *Pyramid) withPlan(err error, fromNS, toNS int64, pixels int) error {
	e, ok := err.(*IncompleteError)
	if !ok {
		return err
	}
	need := map[int]bool{}
	for _, id := range e.Chunks {
		need[id] = true
	}
	for _, id := range p.Plan(fromNS, toNS, pixels) {
		need[id] = true
	}
	e.Chunks = p.unloaded(need)
	return e
}

func (p *Pyramid) unloaded(need map[int]bool) []int {
	var out []int
	for id := range need {
		if !p.Loaded(id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
