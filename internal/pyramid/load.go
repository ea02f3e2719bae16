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
	src, line, err := loadEvidence(c.id, t)
	if err != nil {
		return err
	}
	c.times, c.values, c.valid, c.limits, c.limitOK, c.loaded = times, values, valid, limits, limitOK, true
	c.src, c.line = src, line
	p.clearSorted(c.id)
	return nil
}

func (p *Pyramid) loadLevel(c *levelChunk, shift uint8, t *shard.Table) error {
	names := levelColumns[:levelColumnsWithoutLimits]
	if p.hasLimits {
		names = levelColumns
	}
	cols := make([]*shard.Column, len(names))
	for i, name := range names {
		col, err := column(t, name, levelColumnType(i))
		if err != nil {
			return err
		}
		cols[i] = col
	}
	k := uint(shift)
	mask := bucketMask(k)
	ints := func(col, i int) int64 { return cols[col].Ints[i] }
	floats := func(col, i int) float64 { return cols[col].Floats[i] }
	buckets := make([]bucket, t.Rows)
	for i := range buckets {
		b := &buckets[i]
		b.key = ints(colKey, i)
		s := &b.s
		s.Count, s.Gaps = ints(colCount, i), ints(colGaps, i)
		bad := func(what string) error {
			return layoutErr("chunk %d bucket %d (key %d): %s", c.id, i, b.key, what)
		}
		switch {
		case i == 0 && b.key != c.first, i == t.Rows-1 && b.key != c.last:
			return bad("key disagrees with the index")
		case i > 0 && b.key <= buckets[i-1].key:
			return bad("keys do not increase")
		case s.Count < 0 || s.Gaps < 0 || s.rows() < 1:
			return bad("invalid counts")
		}
		for _, col := range []int{colFirstDT, colFirstV, colLastDT, colLastV, colMinDT, colMinV, colMaxDT, colMaxV, colSum} {
			if cols[col].IsNull(i) != (s.Count == 0) {
				return bad("sample fields must be present exactly when count > 0")
			}
		}
		if cols[colGapDT].IsNull(i) != (s.Gaps == 0) {
			return bad("gap_dt must be present exactly when gaps > 0")
		}
		start := b.key << k
		end := start | mask
		// inBucket: offsets laid end to end fit in the bucket, so every
		// derived time lies inside it and first ≤ min, max, usage ≤ last.
		inBucket := func(dt ...int64) bool {
			var sum uint64
			for _, d := range dt {
				if d < 0 || d > mask {
					return false
				}
				sum += uint64(d)
			}
			return sum <= uint64(mask)
		}
		if s.Count > 0 {
			first, last := ints(colFirstDT, i), ints(colLastDT, i)
			minDT, maxDT := ints(colMinDT, i), ints(colMaxDT, i)
			if !inBucket(first, last) || !inBucket(first, minDT, last) || !inBucket(first, maxDT, last) {
				return bad("sample times outside the bucket or out of order")
			}
			s.First = Point{start + first, floats(colFirstV, i)}
			s.Last = Point{end - last, floats(colLastV, i)}
			s.Min = Point{s.First.T + minDT, floats(colMinV, i)}
			s.Max = Point{s.First.T + maxDT, floats(colMaxV, i)}
			s.Sum = floats(colSum, i)
			if s.Min.V > s.Max.V {
				return bad("min above max")
			}
		}
		if s.Gaps > 0 {
			dt := ints(colGapDT, i)
			if !inBucket(dt) {
				return bad("gap time outside the bucket")
			}
			s.gapT = start + dt
		}
		s.unavailable = s.Count
		if p.hasLimits {
			s.unavailable = ints(colUnavailable, i)
			if s.unavailable < 0 || s.unavailable > s.Count {
				return bad("unavailable outside 0..count")
			}
			if cols[colUsageDT].IsNull(i) == s.hasUsage() || cols[colUsageV].IsNull(i) == s.hasUsage() {
				return bad("usage must be present exactly when a sample has a limit")
			}
			if s.hasUsage() {
				dt := ints(colUsageDT, i)
				if !inBucket(ints(colFirstDT, i), dt, ints(colLastDT, i)) {
					return bad("usage time outside the bucket")
				}
				s.usage = Point{s.First.T + dt, floats(colUsageV, i)}
			}
		}
	}
	c.buckets, c.loaded = buckets, true
	return nil
}
