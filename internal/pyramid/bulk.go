package pyramid

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Points is a run of points in columns, for AddPoints. T and V are required
// and of one length; Null, Source and Row may be nil (no point is null; the
// evidence is unknown) or of that same length.
type Points struct {
	T      []int64
	V      []float64
	Null   []bool
	Source []int64
	Row    []int64
}

// AddPoints adds the points of p in order, exactly as AddFrom would one by
// one, with the same result and the same error for the first time that
// decreases (the points before it are added). A large capture adds about
// 100 M points, and a call per point with its checks was the largest part of
// building their summaries: here the checks run once per call and the rows'
// level statistics in one loop over each run of new rows.
func (b *Builder) AddPoints(p Points) error {
	n := len(p.T)
	if len(p.V) != n || p.Null != nil && len(p.Null) != n || p.Source != nil && len(p.Source) != n || p.Row != nil && len(p.Row) != n {
		return errors.New("points: columns of different lengths")
	}
	if b.finished {
		return errors.New("add after finish")
	}
	if n == 0 {
		return nil
	}
	// The first decreasing time ends the run; the points before it are added.
	var bad error
	prev, started := b.lastT, b.started
	for i, t := range p.T {
		if started && t < prev {
			bad = fmt.Errorf("time %d ns is before the previous point at %d ns", t, prev)
			n = i
			break
		}
		prev, started = t, true
	}
	if b.temporal == Setting || b.limit != nil || !b.evidence {
		// Conflicts and limits keep their per-point path; so does a builder
		// that drops evidence (AddFrom does that per point).
		for i := range n {
			null := p.Null != nil && p.Null[i]
			src, row := int64(-1), int64(-1)
			if p.Source != nil {
				src = p.Source[i]
			}
			if p.Row != nil {
				row = p.Row[i]
			}
			if err := b.AddFrom(p.T[i], p.V[i], null, src, row); err != nil {
				return err
			}
		}
		return bad
	}
	if n > 0 {
		b.addFast(p, n)
	}
	return bad
}

// addFast adds points [0, n) of p to a Sample or Event builder that keeps
// evidence and has no limit; their times do not decrease. A point whose
// successor has another time is a row of its own, so runs of such points
// are copied into the chunks column by column.
func (b *Builder) addFast(p Points, n int) {
	base := b.added
	b.started, b.lastT = true, p.T[n-1]
	if b.temporal == Event {
		b.pushRows(p, 0, n, base)
		b.added = base + int64(n)
		b.observeCur()
		return
	}
	for i := 0; i < n; {
		t, v := p.T[i], p.V[i]
		valid := (p.Null == nil || !p.Null[i]) && !math.IsNaN(v) && !math.IsInf(v, 0)
		if b.pending && t == b.pendingT {
			if !valid || v != b.pendingV {
				b.pendingValid = false
			}
			i++
			continue
		}
		if b.pending {
			b.added = base + int64(i) + 1 // as AddFrom counts when it flushes
			b.pushRow(b.pendingT, b.pendingV, b.pendingValid, b.pendingSrc, b.pendingLn)
		}
		// Points [i, j) are followed by another time within p: whole rows.
		j := i
		for j+1 < n && p.T[j+1] != p.T[j] {
			j++
		}
		b.pushRows(p, i, j, base)
		t, v = p.T[j], p.V[j]
		valid = (p.Null == nil || !p.Null[j]) && !math.IsNaN(v) && !math.IsInf(v, 0)
		src, row := int64(-1), int64(-1)
		if p.Source != nil {
			src = p.Source[j]
		}
		if p.Row != nil {
			row = p.Row[j]
		}
		b.pending, b.pendingT, b.pendingV, b.pendingValid = true, t, v, valid
		b.pendingSrc, b.pendingLn, b.pendingFirstValid = src, row, valid
		i = j + 1
	}
	b.added = base + int64(n)
	b.observeCur()
}

// pushRows makes points [i, j) of p rows of their own, as pushRow would one
// by one; base is the count of points added before p.
func (b *Builder) pushRows(p Points, i, j int, base int64) {
	for i < j {
		c := &b.cur
		if c.times == nil {
			b.added = base + int64(i) + 1
			b.newChunk()
		}
		m := min(j-i, b.exactRows-len(c.times))
		k := len(c.times)
		c.times = append(c.times, p.T[i:i+m]...)
		c.values = append(c.values, p.V[i:i+m]...)
		c.valid = slices.Grow(c.valid, m)[:k+m]
		vals, valid := c.values[k:k+m], c.valid[k:k+m]
		for x, v := range vals {
			ok := !math.IsNaN(v) && !math.IsInf(v, 0)
			if p.Null != nil && p.Null[i+x] {
				ok = false
			}
			if !ok {
				vals[x] = 0 // a gap's value is not stored
			}
			valid[x] = ok
		}
		c.src = appendEvidence(c.src, p.Source, i, m)
		c.line = appendEvidence(c.line, p.Row, i, m)
		i += m
		if len(c.times) == b.exactRows {
			b.observeCur()
			b.seal()
		}
	}
}

// appendEvidence appends col[i:i+m] to dst, every value below -1 as -1 (all
// -1 when col is nil).
func appendEvidence(dst, col []int64, i, m int) []int64 {
	k := len(dst)
	if col == nil {
		dst = slices.Grow(dst, m)[:k+m]
		for x := range dst[k:] {
			dst[k+x] = -1
		}
		return dst
	}
	dst = append(dst, col[i:i+m]...)
	for x, v := range dst[k:] {
		if v < -1 {
			dst[k+x] = -1
		}
	}
	return dst
}

// pushRow is appendRow for a builder without a limit, leaving the level
// statistics of the chunk's rows to observeCur, which runs before the chunk
// is sealed and before AddPoints returns.
func (b *Builder) pushRow(t int64, v float64, valid bool, source, row int64) {
	if !valid {
		v = 0 // a gap's value is not stored
	}
	c := &b.cur
	if c.times == nil {
		b.newChunk()
	}
	c.times = append(c.times, t)
	c.values = append(c.values, v)
	c.valid = append(c.valid, valid)
	c.src = append(c.src, max(source, -1))
	c.line = append(c.line, max(row, -1))
	if len(c.times) == b.exactRows {
		b.observeCur()
		b.seal()
	}
}

// newChunk starts the chunk being filled.
func (b *Builder) newChunk() {
	c := &b.cur
	n := b.exactRows
	// Every row still to come is a point not yet added, or this one or the
	// pending one.
	if left := b.points - b.added + 2; b.points > 0 && left < int64(n) {
		n = int(max(left, 1))
	}
	b.observed = 0
	if b.reuseChunk(n) {
		return
	}
	c.times, c.values, c.valid = make([]int64, 0, n), make([]float64, 0, n), make([]bool, 0, n)
	if b.limit != nil {
		c.limits, c.limitOK = make([]float64, 0, n), make([]bool, 0, n)
	}
	if b.evidence {
		c.src, c.line = make([]int64, 0, n), make([]int64, 0, n)
	}
}

// observeCur gathers the level statistics (see Builder.changes) of the rows
// pushed into the current chunk since the last call, as appendRow gathers
// them row by row.
func (b *Builder) observeCur() {
	times := b.cur.times[b.observed:]
	if len(times) == 0 {
		return
	}
	if b.rows > 0 {
		prev := b.lastRowBefore(b.observed)
		for _, t := range times {
			b.changes[bits.Len64(uint64(t^prev))]++
			prev = t
		}
	} else {
		prev := times[0]
		for _, t := range times[1:] {
			b.changes[bits.Len64(uint64(t^prev))]++
			prev = t
		}
	}
	b.observeFinest(times)
	b.rows += int64(len(times))
	b.observed = len(b.cur.times)
}

// lastRowBefore is the time of the row before row i of the current chunk.
func (b *Builder) lastRowBefore(i int) int64 {
	if i > 0 {
		return b.cur.times[i-1]
	}
	return b.exact[len(b.exact)-1].last
}

// observeFinest updates finest and the ring of recent times with times, the
// next rows in order.
func (b *Builder) observeFinest(times []int64) {
	m := b.minRows - 1
	if m == 0 {
		b.finest = 0
		return
	}
	// Until the ring is full, row by row as appendRow does.
	for len(b.recent) < m {
		if len(times) == 0 {
			return
		}
		b.recent = append(b.recent, times[0])
		times = times[1:]
	}
	finest := b.finest
	ring := b.recent
	// Row j's time m rows back is the ring's j-th oldest for j < m, else
	// times[j-m]; the ring slot read for j < m is then rewritten with
	// times[j], which no later row reads.
	for j, t := range times {
		var old int64
		if j < m {
			k := b.oldest + j
			if k >= m {
				k -= m
			}
			old = ring[k]
			ring[k] = t
		} else {
			old = times[j-m]
		}
		finest = min(finest, bits.Len64(uint64(t^old)))
	}
	if len(times) >= m {
		copy(ring, times[len(times)-m:])
		b.oldest = 0
	} else {
		b.oldest = (b.oldest + len(times)) % m
	}
	b.finest = finest
}

// addRows folds rows [i, j) of an exact chunk into s, which holds only rows
// before them: exactly what addRow would, row by row (the sum too is added
// in row order), without a call per row.
func addRows(s *summary, c *exactChunk, i, j int) {
	times, values, valid := c.times[:j], c.values[:j], c.valid[:j]
	if c.limitOK != nil {
		for k := i; k < j; k++ {
			s.addRow(times[k], values[k], valid[k], c.limits[k], c.limitOK[k])
		}
		return
	}
	count, sum, gaps, gapT, unavailable := s.Count, s.Sum, s.Gaps, s.gapT, s.unavailable
	first, last, lo, hi := s.First, s.Last, s.Min, s.Max
	for k := i; k < j; k++ {
		t := times[k]
		if !valid[k] {
			if gaps == 0 {
				gapT = t
			}
			gaps++
			continue
		}
		v := values[k]
		if count == 0 {
			first, lo, hi = Point{t, v}, Point{t, v}, Point{t, v}
		} else {
			if v < lo.V {
				lo = Point{t, v}
			}
			if v > hi.V {
				hi = Point{t, v}
			}
		}
		last = Point{t, v}
		sum += v
		count++
		unavailable++ // no limit: no sample has one
	}
	s.Count, s.Sum, s.Gaps, s.gapT, s.unavailable = count, sum, gaps, gapT, unavailable
	s.First, s.Last, s.Min, s.Max = first, last, lo, hi
}
