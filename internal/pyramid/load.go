package pyramid

import (
	"github.com/dsight/dsight/internal/shard"
)

// Load fills chunk id from its table, checking it against the index so that
// a swapped, stale or damaged table is refused rather than answered from.
func (p *Pyramid) Load(id int, t *shard.Table) error {
	m := p.meta(id)
	if m == nil {
		return layoutErr("no chunk %d (the index has %d)", id, p.chunks)
	}
	if t.Rows != m.rows {
		return layoutErr("chunk %d: table has %d rows, the index says %d", id, t.Rows, m.rows)
	}
	if id < len(p.exact) {
		return p.loadExact(&p.exact[id], t)
	}
	c := p.levelChunk(id)
	var shift uint8
	for _, l := range p.levels {
		if len(l.chunks) > 0 && id >= l.chunks[0].id && id <= l.chunks[len(l.chunks)-1].id {
			shift = l.shift
		}
	}
	return p.loadLevel(c, shift, t)
}

func (p *Pyramid) loadExact(c *exactChunk, t *shard.Table) error {
	tc, err := column(t, "t", shard.Int64)
	if err != nil {
		return err
	}
	vc, err := column(t, "v", shard.Float64)
	if err != nil {
		return err
	}
	n := t.Rows
	times, values := tc.Ints, vc.Floats
	valid := vc.Valid
	if valid == nil {
		valid = make([]bool, n)
		for i := range valid {
			valid[i] = true
		}
	}
	if times[0] != c.first || times[n-1] != c.last {
		return layoutErr("chunk %d: times %d..%d, the index says %d..%d", c.id, times[0], times[n-1], c.first, c.last)
	}
	for i := 1; i < n; i++ {
		if times[i] < times[i-1] || times[i] == times[i-1] && p.temporal != Event {
			return layoutErr("chunk %d row %d: time %d does not follow %d", c.id, i, times[i], times[i-1])
		}
	}
	var limits []float64
	var limitOK []bool
	if p.hasLimits {
		lc, err := column(t, "limit", shard.Float64)
		if err != nil {
			return err
		}
		limits, limitOK = lc.Floats, lc.Valid
		if limitOK == nil {
			limitOK = make([]bool, n)
			for i := range limitOK {
				limitOK[i] = true
			}
		}
		for i := range limitOK {
			if limitOK[i] && (!valid[i] || limits[i] <= 0) {
				return layoutErr("chunk %d row %d: a limit on a gap or a limit ≤ 0", c.id, i)
			}
		}
	}
	c.times, c.values, c.valid, c.limits, c.limitOK, c.loaded = times, values, valid, limits, limitOK, true
	return nil
}

func (p *Pyramid) loadLevel(c *levelChunk, shift uint8, t *shard.Table) error {
	names := levelColumns[:levelColumnsWithoutLimits]
	if p.hasLimits {
		names = levelColumns
	}
	cols := make([]*shard.Column, len(names))
	for i, name := range names {
		typ := shard.Int64
		switch name {
		case "first_v", "last_v", "min_v", "max_v", "sum", "usage_v":
			typ = shard.Float64
		}
		col, err := column(t, name, typ)
		if err != nil {
			return err
		}
		cols[i] = col
	}
	k := uint(shift)
	mask := bucketMask(k)
	buckets := make([]bucket, t.Rows)
	for i := range buckets {
		b := &buckets[i]
		b.key = cols[0].Ints[i]
		s := &b.s
		s.Count, s.Gaps = cols[1].Ints[i], cols[2].Ints[i]
		start := b.key << k
		in := func(t int64) bool { return t >= start && t <= start|mask }
		bad := func(what string) error {
			return layoutErr("chunk %d bucket %d (key %d): %s", c.id, i, b.key, what)
		}
		switch {
		case i == 0 && b.key != c.first, i == t.Rows-1 && b.key != c.last:
			return bad("key disagrees with the index")
		case i > 0 && b.key <= buckets[i-1].key:
			return bad("keys do not increase")
		case s.Count < 0 || s.Gaps < 0 || s.rows() < 1 || s.rows() < 0:
			return bad("invalid counts")
		}
		for j := 3; j <= 11; j++ {
			if cols[j].IsNull(i) != (s.Count == 0) {
				return bad("sample fields must be present exactly when count > 0")
			}
		}
		if cols[12].IsNull(i) != (s.Gaps == 0) {
			return bad("gap_t must be present exactly when gaps > 0")
		}
		if s.Count > 0 {
			s.First = Point{cols[3].Ints[i], cols[4].Floats[i]}
			s.Last = Point{cols[5].Ints[i], cols[6].Floats[i]}
			s.Min = Point{cols[7].Ints[i], cols[8].Floats[i]}
			s.Max = Point{cols[9].Ints[i], cols[10].Floats[i]}
			s.Sum = cols[11].Floats[i]
			if !in(s.First.T) || !in(s.Last.T) || !in(s.Min.T) || !in(s.Max.T) || s.First.T > s.Last.T || s.Min.V > s.Max.V {
				return bad("sample fields outside the bucket or out of order")
			}
		}
		if s.Gaps > 0 {
			s.gapT = cols[12].Ints[i]
			if !in(s.gapT) {
				return bad("gap time outside the bucket")
			}
		}
		if p.hasLimits {
			s.unavailable = cols[13].Ints[i]
			if s.unavailable < 0 || s.unavailable > s.Count {
				return bad("unavailable outside 0..count")
			}
			if cols[14].IsNull(i) == s.hasUsage() || cols[15].IsNull(i) == s.hasUsage() {
				return bad("usage must be present exactly when a sample has a limit")
			}
			if s.hasUsage() {
				s.usage = Point{cols[14].Ints[i], cols[15].Floats[i]}
				if !in(s.usage.T) {
					return bad("usage time outside the bucket")
				}
			}
		} else {
			s.unavailable = s.Count
		}
	}
	c.buckets, c.loaded = buckets, true
	return nil
}
