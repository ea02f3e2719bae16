package query

import (
	"cmp"
	"slices"
)

// The page prefetches a shown profile's detail shards in idle time, the
// ones nearest its window first, so that a zoom to a window never viewed
// only decodes. nsys_prefetch names them: the chunks the engine does not
// hold, ordered by their distance from the window (the ones overlapping
// it first), each with its time range. Which to keep, and how many bytes,
// is the page's budget; the engine's own cache is untouched.

// PrefetchChunk is one detail shard of "nsys_prefetch": its descriptor
// (as shards_needed names it), its time range and its distance from the
// window, in seconds (0 when it overlaps).
type PrefetchChunk struct {
	ShardNeed
	Range    [2]float64 `json:"range"`
	Distance float64    `json:"distance"`
}

func (e *Engine) nsysPrefetch(a Args) ([]PrefetchChunk, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	match := e.profileMatch(a)
	if len(match) != 1 {
		return nil, badArgs("nsys_prefetch plans one profile: the filters select %d", len(match))
	}
	limit := 100
	if a.Limit != nil {
		limit = *a.Limit
	}
	p := &e.c.Profiles[match[0]]
	// Chunks overlapping a broad window tie at distance 0: the ones whose
	// middle is nearest the window's go first.
	type near struct {
		chunk    int
		gap, mid int64
	}
	centre := w.fromNS/2 + w.toNS/2
	order := make([]near, 0, len(p.Chunks))
	for k, c := range p.Chunks {
		var gap int64
		switch {
		case c.MaxEndNS < w.fromNS:
			gap = w.fromNS - c.MaxEndNS
		case c.MinStartNS > w.toNS:
			gap = c.MinStartNS - w.toNS
		}
		mid := c.MinStartNS/2 + c.MaxEndNS/2 - centre
		order = append(order, near{k, gap, max(mid, -mid)})
	}
	slices.SortStableFunc(order, func(x, y near) int { return cmp.Or(cmp.Compare(x.gap, y.gap), cmp.Compare(x.mid, y.mid)) })
	ids := make([]string, 0, min(len(order), limit))
	for _, n := range order[:min(len(order), limit)] {
		ids = append(ids, p.Chunks[n.chunk].ID)
	}
	_, missing := e.detailClaim(ids)
	byID := make(map[string]ShardNeed, len(missing))
	for _, m := range missing {
		byID[m.ID] = m
	}
	out := []PrefetchChunk{}
	for _, n := range order[:min(len(order), limit)] {
		c := p.Chunks[n.chunk]
		m, ok := byID[c.ID]
		if !ok {
			continue // held: nothing to fetch
		}
		out = append(out, PrefetchChunk{ShardNeed: m, Range: [2]float64{seconds(c.MinStartNS), seconds(c.MaxEndNS)}, Distance: seconds(n.gap)})
	}
	return out, nil
}
