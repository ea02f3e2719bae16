package pyramid

import (
	"fmt"
	"sort"
	"sync/atomic"
)

// Temporal says how a series' values relate to time; it decides how points
// sharing a timestamp become rows and how a limit series applies.
type Temporal uint8

const (
	// Sample: a recorded observation. Points at one timestamp become one row:
	// identical values count once, anything else is a gap.
	Sample Temporal = iota
	// Event: a per-request or per-batch observation. Every point is a row,
	// even with the same timestamp and value.
	Event
	// Setting: a configuration held from its timestamp until the next row.
	// Rows are formed as for Sample; a gap row clears the setting. A
	// timestamp whose points disagree also keeps each distinct point
	// (Pyramid.Conflicts, RowsAt).
	Setting
)

func (t Temporal) String() string {
	switch t {
	case Sample:
		return "sample"
	case Event:
		return "event"
	case Setting:
		return "setting"
	}
	return fmt.Sprintf("temporal(%d)", uint8(t))
}

func (t Temporal) valid() bool { return t <= Setting }

// Defaults.
const (
	// DefaultMinBucketRows is the row count from which a bucket is worth
	// storing: smaller buckets are read row by row. 32 keeps summaries near
	// 12% of the exact rows' bytes on a 1 ms gauge while a 2,000-pixel view
	// reads at most ~200k rows; 16 halves those reads for 3.6× the summary
	// bytes (layout.md, "Measured").
	DefaultMinBucketRows = 32
	// maxChunkRows and maxChunkBytes bound one chunk (one shard table), as the
	// reference bounds its detail shards (8,192 rows, 512 KiB decoded).
	maxChunkRows  = 8192
	maxChunkBytes = 512 << 10
	// levelStep is the shift between stored levels: each is 4× coarser.
	levelStep = 2
	// maxShift is the coarsest level: t>>62 takes at most four values.
	maxShift = 62
	// topBuckets: building stops at the first level with this few buckets.
	topBuckets = 4
)

// Pyramid is one series' exact rows and bucket levels, all or partly loaded.
// It is immutable once built or loaded, except for Load and Unload; queries
// may run concurrently with each other, not with Load or Unload.
type Pyramid struct {
	temporal  Temporal
	minRows   int
	hasLimits bool
	rows      int64
	exact     []exactChunk
	levels    []level // shifts ascending by levelStep
	chunks    int     // exact chunks, then each level's chunks, in order
	// conflicts: a Setting series' distinct points at each timestamp whose
	// points disagree, in time order (conflicts.go).
	conflicts []Row

	sorted sortedCache           // per exact chunk, then the whole series (sortedrows.go)
	whole  []atomic.Pointer[any] // one slot: WholeMemo's value (sortedrows.go)
}

// chunkMeta is what the index knows about a chunk without loading it.
type chunkMeta struct {
	id          int
	first, last int64 // exact: first and last row time; level: first and last bucket key
	rows        int
	start       int64 // rows (exact) or buckets (level) before this chunk
	loaded      bool
}

type exactChunk struct {
	chunkMeta
	times   []int64
	values  []float64
	valid   []bool    // false: a gap row
	limits  []float64 // with limits: the sample's limit, when limitOK
	limitOK []bool
	// src and line are each row's evidence (-1 unknown), or nil when the
	// series was built without it.
	src, line []int64
}

type level struct {
	shift uint8
	// full: the level stores every non-empty bucket, so no row lies between
	// its stored buckets; otherwise only buckets of at least minRows rows.
	full   bool
	chunks []levelChunk
}

type levelChunk struct {
	chunkMeta
	buckets []bucket
}

type bucket struct {
	key int64 // t >> shift of its rows
	s   summary
}

// Temporal is the series' temporal kind.
func (p *Pyramid) Temporal() Temporal { return p.temporal }

// Rows is the number of exact rows (samples and gaps).
func (p *Pyramid) Rows() int64 { return p.rows }

// HasLimits reports whether every sample carries its limit, resolved at
// build time against a paired limit series (Options.Limit).
func (p *Pyramid) HasLimits() bool { return p.hasLimits }

// Shifts lists the stored levels' bucket widths as powers of two.
func (p *Pyramid) Shifts() []int {
	out := make([]int, len(p.levels))
	for i, l := range p.levels {
		out[i] = int(l.shift)
	}
	return out
}

// Buckets is the number of stored buckets over all levels.
func (p *Pyramid) Buckets() int64 {
	var n int64
	for _, l := range p.levels {
		for _, c := range l.chunks {
			n += int64(c.rows)
		}
	}
	return n
}

// ChunkCount is the number of chunks (exact and level) in the layout.
func (p *Pyramid) ChunkCount() int { return p.chunks }

// Loaded reports whether chunk id holds its data.
func (p *Pyramid) Loaded(id int) bool {
	m := p.meta(id)
	return m != nil && m.loaded
}

// Unload drops chunk id's data (for a cache with a byte budget); the index
// entry stays, so a later query names it as missing.
func (p *Pyramid) Unload(id int) {
	if id < 0 || id >= p.chunks {
		return
	}
	if id < len(p.exact) {
		c := &p.exact[id]
		c.times, c.values, c.valid, c.limits, c.limitOK, c.loaded = nil, nil, nil, nil, nil, false
		p.clearSorted(id)
		return
	}
	c := p.levelChunk(id)
	c.buckets, c.loaded = nil, false
}

func (p *Pyramid) meta(id int) *chunkMeta {
	if id < 0 || id >= p.chunks {
		return nil
	}
	if id < len(p.exact) {
		return &p.exact[id].chunkMeta
	}
	return &p.levelChunk(id).chunkMeta
}

func (p *Pyramid) levelChunk(id int) *levelChunk {
	id -= len(p.exact)
	for li := range p.levels {
		if id < len(p.levels[li].chunks) {
			return &p.levels[li].chunks[id]
		}
		id -= len(p.levels[li].chunks)
	}
	return nil
}

// firstChunkEndingAtOrAfter is the index of the first chunk whose last key is
// ≥ k (len when none): chunks before it hold only smaller keys.
func firstChunkEndingAtOrAfter(n int, last func(i int) int64, k int64) int {
	return sort.Search(n, func(i int) bool { return last(i) >= k })
}

// bucketMask is the offset mask of a bucket of width 2^shift.
func bucketMask(shift uint) int64 { return int64(uint64(1)<<shift - 1) }
