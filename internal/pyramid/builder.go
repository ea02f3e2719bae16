package pyramid

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Options configure a Builder. The zero value builds a Sample series with the
// default bucket threshold and chunk sizes.
type Options struct {
	Temporal Temporal
	// MinBucketRows is the row count from which a bucket is stored (0: the
	// default). Smaller values store more buckets and read fewer rows.
	MinBucketRows int
	// ChunkRows caps the rows of one chunk (0: 8,192 and 512 KiB decoded).
	ChunkRows int
	// Limit is the paired limit or pool series, already built. When set,
	// every sample resolves its limit while it is added: for a Setting limit
	// the last limit row at or before the sample, otherwise a limit row at
	// exactly the sample's timestamp. Only a valid positive value is a limit.
	Limit *Pyramid
}

// Builder turns one series' points, fed in time order, into a Pyramid.
type Builder struct {
	temporal  Temporal
	minRows   int
	chunkRows int
	limit     *rowCursor
	finished  bool

	times   []int64
	values  []float64
	valid   []bool
	limits  []float64
	limitOK []bool

	// pending is the timestamp group being formed (Sample and Setting).
	pending               bool
	pendingT              int64
	pendingV              float64
	pendingValid, started bool
	lastT                 int64
}

// NewBuilder checks opts and returns an empty Builder.
func NewBuilder(opts Options) (*Builder, error) {
	if !opts.Temporal.valid() {
		return nil, fmt.Errorf("invalid temporal %d", uint8(opts.Temporal))
	}
	if opts.MinBucketRows < 0 || opts.ChunkRows < 0 {
		return nil, errors.New("negative MinBucketRows or ChunkRows")
	}
	b := &Builder{temporal: opts.Temporal, minRows: opts.MinBucketRows, chunkRows: opts.ChunkRows}
	if b.minRows == 0 {
		b.minRows = DefaultMinBucketRows
	}
	if l := opts.Limit; l != nil {
		if l.temporal == Event {
			return nil, errors.New("an event series cannot be a limit")
		}
		for i := range l.exact {
			if !l.exact[i].loaded {
				return nil, fmt.Errorf("limit chunk %d is not loaded", i)
			}
		}
		b.limit = &rowCursor{p: l}
	}
	return b, nil
}

// Add appends one point. Times must not decrease. A null or non-finite value
// is a gap row; for Sample and Setting series a timestamp whose points
// disagree (or include a gap) is one gap row, and identical points are one
// row.
func (b *Builder) Add(tNS int64, v float64, null bool) error {
	if b.finished {
		return errors.New("add after finish")
	}
	if b.started && tNS < b.lastT {
		return fmt.Errorf("time %d ns is before the previous point at %d ns", tNS, b.lastT)
	}
	b.started, b.lastT = true, tNS
	valid := !null && !math.IsNaN(v) && !math.IsInf(v, 0)
	if b.temporal == Event {
		b.appendRow(tNS, v, valid)
		return nil
	}
	if b.pending && tNS == b.pendingT {
		// Numeric equality, so 0 and -0 agree; the first point's value stays.
		if !valid || v != b.pendingV {
			b.pendingValid = false
		}
		return nil
	}
	b.flush()
	b.pending, b.pendingT, b.pendingV, b.pendingValid = true, tNS, v, valid
	return nil
}

func (b *Builder) flush() {
	if b.pending {
		b.appendRow(b.pendingT, b.pendingV, b.pendingValid)
		b.pending = false
	}
}

func (b *Builder) appendRow(t int64, v float64, valid bool) {
	if !valid {
		v = 0 // a gap's value is not stored
	}
	b.times = append(b.times, t)
	b.values = append(b.values, v)
	b.valid = append(b.valid, valid)
	if b.limit != nil {
		lim, ok := 0.0, false
		if valid {
			lim, ok = b.limit.limitAt(t)
		}
		b.limits = append(b.limits, lim)
		b.limitOK = append(b.limitOK, ok)
	}
}

// Finish completes the pyramid. The Builder cannot be used afterwards.
func (b *Builder) Finish() *Pyramid {
	b.flush()
	b.finished = true
	p := &Pyramid{temporal: b.temporal, minRows: b.minRows, hasLimits: b.limit != nil, rows: int64(len(b.times))}
	exactRows, levelRows := chunkRows(p.hasLimits, b.chunkRows)
	for start := 0; start < len(b.times); start += exactRows {
		end := min(start+exactRows, len(b.times))
		c := exactChunk{
			chunkMeta: chunkMeta{first: b.times[start], last: b.times[end-1], rows: end - start, start: int64(start), loaded: true},
			times:     b.times[start:end:end],
			values:    b.values[start:end:end],
			valid:     b.valid[start:end:end],
		}
		if p.hasLimits {
			c.limits, c.limitOK = b.limits[start:end:end], b.limitOK[start:end:end]
		}
		p.exact = append(p.exact, c)
	}
	p.levels = buildLevels(b.times, b.values, b.valid, b.limits, b.limitOK, b.minRows, levelRows)
	p.numberChunks()
	b.times, b.values, b.valid, b.limits, b.limitOK = nil, nil, nil, nil, nil
	return p
}

// numberChunks assigns ids (exact chunks first, then each level's in order)
// and the running start of each chunk within its table.
func (p *Pyramid) numberChunks() {
	id := 0
	var start int64
	for i := range p.exact {
		p.exact[i].id, p.exact[i].start = id, start
		start += int64(p.exact[i].rows)
		id++
	}
	for li := range p.levels {
		start = 0
		for ci := range p.levels[li].chunks {
			c := &p.levels[li].chunks[ci]
			c.id, c.start = id, start
			start += int64(c.rows)
			id++
		}
	}
	p.chunks = id
}

// chunkRows is the rows per exact and per level chunk: at most maxChunkRows
// and about maxChunkBytes decoded (8 bytes per value, 1 per validity flag).
func chunkRows(hasLimits bool, override int) (exact, level int) {
	exactBytes, levelBytes := 8+9, 8*3+9*9+9 // see layout.go for the columns
	if hasLimits {
		exactBytes += 9
		levelBytes += 8 + 9 + 9
	}
	exact = min(maxChunkRows, maxChunkBytes/exactBytes)
	level = min(maxChunkRows, maxChunkBytes/levelBytes)
	if override > 0 {
		exact, level = min(exact, override), min(level, override)
	}
	return exact, level
}

// levelShifts picks the stored levels: from the finest even shift where some
// bucket holds minRows rows, in steps of levelStep, up to the first level
// with at most topBuckets buckets. full[i] says level i stores every bucket,
// because its buckets hold minRows rows on average.
func levelShifts(times []int64, minRows int) (shifts []uint8, full []bool) {
	n := len(times)
	if n < minRows || n == 0 {
		return nil, nil
	}
	// Two times share a bucket of width 2^k exactly when k ≥ the bit length
	// of their XOR (a sign change gives 64: never).
	finest := 64
	for i := 0; i+minRows-1 < n; i++ {
		finest = min(finest, bits.Len64(uint64(times[i]^times[i+minRows-1])))
	}
	kmin := (finest + levelStep - 1) / levelStep * levelStep
	if kmin > maxShift {
		return nil, nil
	}
	// changes[L] counts consecutive rows whose times first differ at bit L-1:
	// they start a new bucket in every level k < L.
	var changes [65]int64
	for i := 1; i < n; i++ {
		changes[bits.Len64(uint64(times[i]^times[i-1]))]++
	}
	var above [66]int64 // above[k] = Σ changes[L] for L > k
	for k := 64; k >= 0; k-- {
		above[k] = above[k+1]
		if k+1 <= 64 {
			above[k] += changes[k+1]
		}
	}
	for k := kmin; k <= maxShift; k += levelStep {
		buckets := 1 + above[k]
		shifts = append(shifts, uint8(k))
		full = append(full, buckets*int64(minRows) <= int64(n))
		if buckets <= topBuckets {
			break
		}
	}
	return shifts, full
}

// levelBuilder folds rows into the open bucket of the finest level and each
// closed bucket into its parent, storing the buckets each level keeps.
type levelBuilder struct {
	levels    []level
	full      []bool
	open      []bucket
	isOpen    []bool
	minRows   int64
	chunkRows int
}

func buildLevels(times []int64, values []float64, valid []bool, limits []float64, limitOK []bool, minRows, chunkRows int) []level {
	shifts, full := levelShifts(times, minRows)
	if len(shifts) == 0 {
		return nil
	}
	lb := &levelBuilder{
		levels: make([]level, len(shifts)), full: full,
		open: make([]bucket, len(shifts)), isOpen: make([]bool, len(shifts)),
		minRows: int64(minRows), chunkRows: chunkRows,
	}
	for i, k := range shifts {
		lb.levels[i].shift = k
	}
	k0 := shifts[0]
	first := &lb.open[0]
	for i, t := range times {
		key := t >> k0
		if lb.isOpen[0] && first.key != key {
			lb.close(0)
		}
		if !lb.isOpen[0] {
			lb.isOpen[0] = true
			*first = bucket{key: key}
		}
		lim, ok := 0.0, false
		if limitOK != nil {
			lim, ok = limits[i], limitOK[i]
		}
		first.s.addRow(t, values[i], valid[i], lim, ok)
	}
	for li := range lb.open {
		if lb.isOpen[li] {
			lb.close(li)
		}
	}
	return lb.levels
}

func (lb *levelBuilder) close(li int) {
	b := lb.open[li]
	lb.isOpen[li] = false
	if lb.full[li] || b.s.rows() >= lb.minRows {
		lb.store(li, b)
	}
	if li+1 == len(lb.open) {
		return
	}
	parentKey := b.key >> levelStep
	if lb.isOpen[li+1] && lb.open[li+1].key != parentKey {
		lb.close(li + 1)
	}
	if !lb.isOpen[li+1] {
		lb.isOpen[li+1] = true
		lb.open[li+1] = bucket{key: parentKey}
	}
	lb.open[li+1].s.merge(&b.s)
}

func (lb *levelBuilder) store(li int, b bucket) {
	l := &lb.levels[li]
	if n := len(l.chunks); n == 0 || l.chunks[n-1].rows == lb.chunkRows {
		l.chunks = append(l.chunks, levelChunk{chunkMeta: chunkMeta{first: b.key, loaded: true}})
	}
	c := &l.chunks[len(l.chunks)-1]
	c.buckets = append(c.buckets, b)
	c.rows++
	c.last = b.key
}

// rowCursor walks a limit series' rows forward as samples arrive in time
// order, remembering the last row at or before the latest sample.
type rowCursor struct {
	p          *Pyramid
	chunk, row int
	has        bool
	t          int64
	v          float64
	valid      bool
}

// limitAt is the valid positive limit at time t (t never decreases between
// calls).
func (c *rowCursor) limitAt(t int64) (float64, bool) {
	for c.chunk < len(c.p.exact) {
		ch := &c.p.exact[c.chunk]
		if c.row == len(ch.times) {
			c.chunk, c.row = c.chunk+1, 0
			continue
		}
		if ch.times[c.row] > t {
			break
		}
		c.has, c.t, c.v, c.valid = true, ch.times[c.row], ch.values[c.row], ch.valid[c.row]
		c.row++
	}
	if !c.has || !c.valid || c.v <= 0 {
		return 0, false
	}
	if c.p.temporal != Setting && c.t != t {
		return 0, false
	}
	return c.v, true
}
