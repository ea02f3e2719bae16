package pyramid

import "slices"

// Plan lists the chunks not yet loaded that Query(fromNS, toNS, pixels) is
// expected to read, judged from the index alone, so a page can fetch them in
// one round: the exact chunks at the two edges (to count the range's rows),
// all exact chunks in range when the range may hold at most 2×pixels rows
// (or there is no level),
// and otherwise the level chunks in range from the plotted level up plus the
// chunks holding the two edges in the finer levels. Rows of buckets too small
// to be stored can only be located once their level is loaded, so Query may
// still name further exact chunks in an IncompleteError; load them and ask
// again.
func (p *Pyramid) Plan(fromNS, toNS int64, pixels int) []int {
	if pixels <= 0 || fromNS > toNS {
		return nil
	}
	need := map[int]bool{}
	var inside, overlapping int64
	var overlap []int
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
			need[c.id] = true // an edge: needed to count the range's rows
		}
	}
	if inside <= 2*int64(pixels) || len(p.levels) == 0 {
		for _, i := range overlap {
			need[p.exact[i].id] = true
		}
	}
	if overlapping > 2*int64(pixels) {
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
	p.planRowsAt(need, fromNS)
	p.planRowsAt(need, toNS)
	if len(p.levels) == 0 { // every row in range is read
		for i := range p.exact {
			if c := &p.exact[i]; c.last >= fromNS && c.first <= toNS {
				need[c.id] = true
			}
		}
	}
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

// planLevels adds, for each level, the chunks a walk plotting at shift w
// reads: all chunks in range at the finest level used whole and above, the
// chunks holding the edges below.
func (p *Pyramid) planLevels(need map[int]bool, from, to int64, w int) {
	whole := len(p.levels) - 1 // the finest level whose buckets are used whole
	for whole > 0 && int(p.levels[whole].shift) > w {
		whole--
	}
	for li := range p.levels {
		l := &p.levels[li]
		k := uint(l.shift)
		ka, kb := from>>k, to>>k
		for i := range l.chunks {
			c := &l.chunks[i]
			if c.last < ka || c.first > kb {
				continue
			}
			atEdge := c.first <= ka && ka <= c.last || c.first <= kb && kb <= c.last
			if li >= whole || li == len(p.levels)-1 || atEdge {
				need[c.id] = true
			}
		}
	}
}

func (p *Pyramid) planRowsAt(need map[int]bool, t int64) {
	for i := range p.exact {
		if c := &p.exact[i]; c.first <= t && t <= c.last {
			need[c.id] = true
		}
	}
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
