package pyramid

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"
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
	// Points, when the caller knows it, is how many points it will add; a
	// short series then gets chunks of the rows it can have instead of full
	// ones. It changes no result; adding more points only costs a regrowth.
	Points int64
	// Limit is the paired limit or pool series, already built. When set,
	// every sample resolves its limit while it is added: for a Setting limit
	// the last limit row at or before the sample, otherwise a limit row at
	// exactly the sample's timestamp. Only a valid positive value is a limit.
	Limit *Pyramid
	// Evidence keeps, per exact row, the source id and row or line of the
	// point it came from (AddFrom), so every answered point traces to its
	// file. A row formed from several points keeps the first one's.
	Evidence bool
}

// Builder turns one series' points, fed in time order, into a Pyramid.
// Rows go straight into fixed-size chunks, so a long series is never copied
// while it grows.
type Builder struct {
	temporal  Temporal
	minRows   int
	exactRows int // rows per exact chunk
	levelRows int // buckets per level chunk
	limit     *rowCursor
	evidence  bool
	finished  bool
	points    int64 // Options.Points
	added     int64 // points added so far

	exact []exactChunk
	cur   exactChunk // the chunk being filled
	rows  int64
	// observed is how many rows of cur the level statistics below include
	// (AddPoints gathers them per run of rows, bulk.go).
	observed int

	// The level choice, gathered row by row (see levelShifts): changes[L]
	// counts consecutive rows whose times first differ at bit L-1, finest is
	// the smallest such bit length between rows minRows-1 apart, recent holds
	// the last minRows-1 times.
	changes [65]int64
	finest  int
	recent  []int64
	oldest  int // index in recent of the oldest time, once recent is full

	// pending is the timestamp group being formed (Sample and Setting).
	pending               bool
	pendingT              int64
	pendingV              float64
	pendingValid, started bool
	lastT                 int64
	pendingSrc, pendingLn int64
	// Setting only: whether the group's first point is a value, and the
	// group's distinct points once they disagree (conflicts.go).
	pendingFirstValid bool
	alt, conflicts    []Row
}

// NewBuilder checks opts and returns an empty Builder.
func NewBuilder(opts Options) (*Builder, error) {
	if !opts.Temporal.valid() {
		return nil, fmt.Errorf("invalid temporal %d", uint8(opts.Temporal))
	}
	if opts.MinBucketRows < 0 || opts.ChunkRows < 0 || opts.Points < 0 {
		return nil, errors.New("negative MinBucketRows, ChunkRows or Points")
	}
	b := &Builder{temporal: opts.Temporal, minRows: opts.MinBucketRows, finest: 64, points: opts.Points, evidence: opts.Evidence}
	if b.minRows == 0 {
		b.minRows = DefaultMinBucketRows
	}
	b.exactRows, b.levelRows = chunkRows(opts.Limit != nil, opts.Evidence, opts.ChunkRows)
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
// row. A Setting series also keeps such a timestamp's distinct points
// (conflicts.go).
func (b *Builder) Add(tNS int64, v float64, null bool) error {
	return b.AddFrom(tNS, v, null, -1, -1)
}

// AddFrom is Add with the point's evidence: the id of its source file and
// its row (zero-based) or line (one-based) there; -1 is unknown. Without
// Options.Evidence the evidence is dropped.
func (b *Builder) AddFrom(tNS int64, v float64, null bool, source, row int64) error {
	if b.finished {
		return errors.New("add after finish")
	}
	if b.started && tNS < b.lastT {
		return fmt.Errorf("time %d ns is before the previous point at %d ns", tNS, b.lastT)
	}
	b.started, b.lastT = true, tNS
	b.added++
	valid := !null && !math.IsNaN(v) && !math.IsInf(v, 0)
	if b.temporal == Event {
		b.appendRow(tNS, v, valid, source, row)
		return nil
	}
	if b.pending && tNS == b.pendingT {
		// Numeric equality, so 0 and -0 agree; the first point's value stays.
		if !valid || v != b.pendingV {
			b.pendingValid = false
		}
		if b.temporal == Setting {
			b.noteSetting(v, valid, source, row)
		}
		return nil
	}
	b.flush()
	b.pending, b.pendingT, b.pendingV, b.pendingValid = true, tNS, v, valid
	b.pendingSrc, b.pendingLn, b.pendingFirstValid = source, row, valid
	return nil
}

func (b *Builder) flush() {
	if b.pending {
		b.appendRow(b.pendingT, b.pendingV, b.pendingValid, b.pendingSrc, b.pendingLn)
		b.pending = false
		b.flushConflicts()
	}
}

func (b *Builder) appendRow(t int64, v float64, valid bool, source, row int64) {
	if !valid {
		v = 0 // a gap's value is not stored
	}
	c := &b.cur
	if c.times == nil {
		b.newChunk()
	}
	if b.rows > 0 {
		b.changes[bits.Len64(uint64(t^b.lastRowT()))]++
	}
	if m := b.minRows - 1; m == 0 {
		b.finest = 0
	} else if len(b.recent) == m {
		// recent is a ring; its oldest time is minRows-1 rows before t.
		b.finest = min(b.finest, bits.Len64(uint64(t^b.recent[b.oldest])))
		b.recent[b.oldest] = t
		if b.oldest++; b.oldest == m {
			b.oldest = 0
		}
	} else {
		b.recent = append(b.recent, t)
	}
	c.times = append(c.times, t)
	c.values = append(c.values, v)
	c.valid = append(c.valid, valid)
	if b.evidence {
		c.src = append(c.src, max(source, -1))
		c.line = append(c.line, max(row, -1))
	}
	if b.limit != nil {
		lim, ok := 0.0, false
		if valid {
			lim, ok = b.limit.limitAt(t)
		}
		c.limits = append(c.limits, lim)
		c.limitOK = append(c.limitOK, ok)
	}
	b.rows++
	b.observed = len(c.times)
	if len(c.times) == b.exactRows {
		b.seal()
	}
}

func (b *Builder) lastRowT() int64 {
	if n := len(b.cur.times); n > 0 {
		return b.cur.times[n-1]
	}
	return b.exact[len(b.exact)-1].last
}

// seal closes the chunk being filled.
func (b *Builder) seal() {
	c := b.cur
	if len(c.times) == 0 {
		return
	}
	c.chunkMeta = chunkMeta{first: c.times[0], last: c.times[len(c.times)-1], rows: len(c.times), loaded: true}
	b.exact = append(b.exact, c)
	b.cur = exactChunk{}
}

// Finish completes the pyramid. The Builder cannot be used afterwards.
func (b *Builder) Finish() *Pyramid {
	b.flush()
	b.seal()
	b.finished = true
	p := &Pyramid{temporal: b.temporal, minRows: b.minRows, hasLimits: b.limit != nil, rows: b.rows, exact: b.exact, conflicts: b.conflicts}
	shifts, full := b.levelShifts()
	p.levels = buildLevels(p.exact, shifts, full, b.minRows, b.levelRows)
	p.numberChunks()
	b.exact = nil
	return p
}

// numberChunks assigns ids (exact chunks first, then each level's in order)
// and the running start of each chunk within its table.
func (p *Pyramid) numberChunks() {
	p.sorted = make(sortedCache, len(p.exact)+1)
	p.whole = make([]atomic.Pointer[any], 1)
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
func chunkRows(hasLimits, evidence bool, override int) (exact, level int) {
	exactBytes, levelBytes := 8+9, 8*3+9*9+9 // see layout.go for the columns
	if hasLimits {
		exactBytes += 9
		levelBytes += 8 + 9 + 9
	}
	if evidence {
		exactBytes += 8 + 8
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
// with at most topBuckets buckets. full[i] > 0 says level i stores every
// bucket, full[i] of them, because they hold minRows rows on average.
//
// Two times share a bucket of width 2^k exactly when k ≥ the bit length of
// their XOR (a sign change gives 64: never), so the finest level follows from
// rows minRows-1 apart and each level's bucket count from consecutive rows.
func (b *Builder) levelShifts() (shifts []uint8, full []int64) {
	n := b.rows
	if n == 0 || n < int64(b.minRows) {
		return nil, nil
	}
	kmin := (b.finest + levelStep - 1) / levelStep * levelStep
	if kmin > maxShift {
		return nil, nil
	}
	var above [66]int64 // above[k] = Σ changes[L] for L > k
	for k := 63; k >= 0; k-- {
		above[k] = above[k+1] + b.changes[k+1]
	}
	for k := kmin; k <= maxShift; k += levelStep {
		buckets := 1 + above[k]
		shifts = append(shifts, uint8(k))
		if buckets*int64(b.minRows) <= n {
			full = append(full, buckets)
		} else {
			full = append(full, 0)
		}
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
	full      []int64 // per level: buckets still to store when it stores all, else 0
	open      []bucket
	isOpen    []bool
	minRows   int64
	chunkRows int
}

func buildLevels(exact []exactChunk, shifts []uint8, full []int64, minRows, chunkRows int) []level {
	if len(shifts) == 0 {
		return nil
	}
	lb := &levelBuilder{
		levels: make([]level, len(shifts)), full: full,
		open: make([]bucket, len(shifts)), isOpen: make([]bool, len(shifts)),
		minRows: int64(minRows), chunkRows: chunkRows,
	}
	for i, k := range shifts {
		lb.levels[i].shift, lb.levels[i].full = k, full[i] > 0
	}
	k0 := shifts[0]
	first := &lb.open[0]
	for ci := range exact {
		c := &exact[ci]
		// Each run of rows in one finest bucket is folded at once.
		for i, n := 0, len(c.times); i < n; {
			key := c.times[i] >> k0
			j := i + 1
			for j < n && c.times[j]>>k0 == key {
				j++
			}
			if lb.isOpen[0] && first.key != key {
				lb.close(0)
			}
			if !lb.isOpen[0] {
				lb.isOpen[0] = true
				*first = bucket{key: key}
			}
			addRows(&first.s, c, i, j)
			i = j
		}
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
	if lb.full[li] > 0 || b.s.rows() >= lb.minRows {
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
		c := levelChunk{chunkMeta: chunkMeta{first: b.key, loaded: true}}
		if lb.full[li] > 0 { // the chunk's size is known: no regrowth
			c.buckets = make([]bucket, 0, min(int64(lb.chunkRows), lb.full[li]))
		}
		l.chunks = append(l.chunks, c)
	}
	if lb.full[li] > 1 {
		lb.full[li]--
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
