package pyramid

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dsight/dsight/internal/shard"
)

// LayoutVersion is the version of the table layout below (layout.md). A
// change an older reader could not decode bumps it.
const LayoutVersion = 1

// Table names. A report may rename chunk tables (for example to prefix a
// series id); Load takes the chunk id, never the name.
const (
	HeaderTable = "pyramid"
	IndexTable  = "pyramid.chunks"
)

// Layout is a pyramid as shard tables: a one-row header, an index with one
// row per chunk (row i describes chunk id i) and the chunk tables in id
// order.
type Layout struct {
	Header shard.Table
	Index  shard.Table
	Chunks []shard.Table
	// Conflicts is ConflictsTable, present only when a Setting series has
	// timestamps whose points disagree.
	Conflicts *shard.Table
}

// ChunkInfo is one index row: Level is -1 for exact rows, else the bucket
// shift; First and Last are the first and last row time (exact) or bucket
// key (level), so a reader picks chunks by time without loading them.
type ChunkInfo struct {
	ID          int
	Level       int
	Rows        int
	First, Last int64
	// Full: the chunk's level stores every non-empty bucket (see Pyramid).
	Full   bool
	Loaded bool
}

// Chunks lists every chunk in id order.
func (p *Pyramid) Chunks() []ChunkInfo {
	out := make([]ChunkInfo, 0, p.chunks)
	for i := range p.exact {
		out = append(out, chunkInfo(&p.exact[i].chunkMeta, -1))
	}
	for _, l := range p.levels {
		for i := range l.chunks {
			c := chunkInfo(&l.chunks[i].chunkMeta, int(l.shift))
			c.Full = l.full
			out = append(out, c)
		}
	}
	return out
}

func chunkInfo(m *chunkMeta, level int) ChunkInfo {
	return ChunkInfo{ID: m.id, Level: level, Rows: m.rows, First: m.first, Last: m.last, Loaded: m.loaded}
}

// Tables lays the pyramid out as shard tables. Every chunk must be loaded.
func (p *Pyramid) Tables() (*Layout, error) {
	l := &Layout{
		Header: shard.Table{Name: HeaderTable, Rows: 1, Columns: []shard.Column{
			intCol("version", LayoutVersion),
			intCol("temporal", int64(p.temporal)),
			intCol("min_bucket_rows", int64(p.minRows)),
			{Name: "has_limits", Type: shard.Bool, Bools: []bool{p.hasLimits}},
			intCol("rows", p.rows),
		}},
	}
	infos := p.Chunks()
	idx := shard.Table{Name: IndexTable, Rows: len(infos), Columns: []shard.Column{
		{Name: "level", Type: shard.Int64}, {Name: "rows", Type: shard.Int64},
		{Name: "first", Type: shard.Int64}, {Name: "last", Type: shard.Int64},
		{Name: "full", Type: shard.Bool},
	}}
	for _, c := range infos {
		if !c.Loaded {
			return nil, fmt.Errorf("chunk %d is not loaded", c.ID)
		}
		for i, v := range []int64{int64(c.Level), int64(c.Rows), c.First, c.Last} {
			idx.Columns[i].Ints = append(idx.Columns[i].Ints, v)
		}
		idx.Columns[4].Bools = append(idx.Columns[4].Bools, c.Full)
	}
	l.Index = idx
	for i := range p.exact {
		l.Chunks = append(l.Chunks, p.exactTable(&p.exact[i]))
	}
	for _, lv := range p.levels {
		for i := range lv.chunks {
			l.Chunks = append(l.Chunks, p.levelTable(&lv.chunks[i], lv.shift))
		}
	}
	l.Conflicts = p.conflictsTable()
	return l, nil
}

func intCol(name string, v int64) shard.Column {
	return shard.Column{Name: name, Type: shard.Int64, Ints: []int64{v}}
}

func chunkName(id int) string { return "pyramid." + strconv.Itoa(id) }

func (p *Pyramid) exactTable(c *exactChunk) shard.Table {
	t := shard.Table{Name: chunkName(c.id), Rows: c.rows, Columns: []shard.Column{
		{Name: "t", Type: shard.Int64, Ints: c.times},
		{Name: "v", Type: shard.Float64, Floats: c.values, Valid: c.valid},
	}}
	if p.hasLimits {
		t.Columns = append(t.Columns, shard.Column{Name: "limit", Type: shard.Float64, Floats: c.limits, Valid: c.limitOK})
	}
	if c.src != nil {
		t.Columns = append(t.Columns, shard.Column{Name: "src", Type: shard.Int64, Ints: c.src}, shard.Column{Name: "line", Type: shard.Int64, Ints: c.line})
	}
	return t
}

// levelColumns names a level chunk's columns in order; the last three exist
// only with limits. Times are stored as offsets within the bucket, which are
// smaller than absolute times and compress better (about 3 bytes each
// instead of 4 on a 1 ms gauge): first_dt from the bucket start, last_dt back
// from the bucket end, min_dt, max_dt and usage_dt from the first sample,
// gap_dt from the bucket start. All lie in [0, 2^shift).
var levelColumns = []string{
	"key", "count", "gaps", "first_dt", "first_v", "last_dt", "last_v",
	"min_dt", "min_v", "max_dt", "max_v", "sum", "gap_dt",
	"unavailable", "usage_dt", "usage_v",
}

const levelColumnsWithoutLimits = 13

// Positions in levelColumns.
const (
	colKey = iota
	colCount
	colGaps
	colFirstDT
	colFirstV
	colLastDT
	colLastV
	colMinDT
	colMinV
	colMaxDT
	colMaxV
	colSum
	colGapDT
	colUnavailable
	colUsageDT
	colUsageV
)

func levelColumnType(i int) shard.Type {
	switch i {
	case colFirstV, colLastV, colMinV, colMaxV, colSum, colUsageV:
		return shard.Float64
	}
	return shard.Int64
}

func (p *Pyramid) levelTable(c *levelChunk, shift uint8) shard.Table {
	n := len(c.buckets)
	names := levelColumns[:levelColumnsWithoutLimits]
	if p.hasLimits {
		names = levelColumns
	}
	hasValue, hasGap, hasUsage := make([]bool, n), make([]bool, n), make([]bool, n)
	cols := make([]shard.Column, len(names))
	for i, name := range names {
		cols[i] = shard.Column{Name: name, Type: levelColumnType(i)}
		if cols[i].Type == shard.Float64 {
			cols[i].Floats = make([]float64, n)
		} else {
			cols[i].Ints = make([]int64, n)
		}
		switch i {
		case colFirstDT, colFirstV, colLastDT, colLastV, colMinDT, colMinV, colMaxDT, colMaxV, colSum:
			cols[i].Valid = hasValue
		case colGapDT:
			cols[i].Valid = hasGap
		case colUsageDT, colUsageV:
			cols[i].Valid = hasUsage
		}
	}
	k := uint(shift)
	for i := range c.buckets {
		b := &c.buckets[i]
		s := &b.s
		start := b.key << k
		end := start | bucketMask(k)
		hasValue[i], hasGap[i], hasUsage[i] = s.Count > 0, s.Gaps > 0, s.hasUsage()
		cols[colKey].Ints[i], cols[colCount].Ints[i], cols[colGaps].Ints[i] = b.key, s.Count, s.Gaps
		if hasValue[i] {
			cols[colFirstDT].Ints[i], cols[colFirstV].Floats[i] = s.First.T-start, s.First.V
			cols[colLastDT].Ints[i], cols[colLastV].Floats[i] = end-s.Last.T, s.Last.V
			cols[colMinDT].Ints[i], cols[colMinV].Floats[i] = s.Min.T-s.First.T, s.Min.V
			cols[colMaxDT].Ints[i], cols[colMaxV].Floats[i] = s.Max.T-s.First.T, s.Max.V
			cols[colSum].Floats[i] = s.Sum
		}
		if hasGap[i] {
			cols[colGapDT].Ints[i] = s.gapT - start
		}
		if p.hasLimits {
			cols[colUnavailable].Ints[i] = s.unavailable
			if hasUsage[i] {
				cols[colUsageDT].Ints[i], cols[colUsageV].Floats[i] = s.usage.T-s.First.T, s.usage.V
			}
		}
	}
	return shard.Table{Name: chunkName(c.id), Rows: n, Columns: cols}
}

// ErrLayout wraps every error of Open and Load: the tables do not describe a
// valid pyramid.
var ErrLayout = errors.New("invalid pyramid layout")

func layoutErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLayout, fmt.Sprintf(format, args...))
}

// Open reads the header and index tables into a pyramid with no chunk
// loaded. Load then fills chunks by id.
func Open(header, index *shard.Table) (*Pyramid, error) {
	if header.Rows != 1 {
		return nil, layoutErr("header has %d rows, want 1", header.Rows)
	}
	var hv [4]int64
	for i, name := range []string{"version", "temporal", "min_bucket_rows", "rows"} {
		col, err := column(header, name, shard.Int64)
		if err != nil {
			return nil, err
		}
		hv[i] = col.Ints[0]
	}
	limits, err := column(header, "has_limits", shard.Bool)
	if err != nil {
		return nil, err
	}
	if hv[0] != LayoutVersion {
		return nil, layoutErr("unsupported layout version %d (this reader reads %d)", hv[0], LayoutVersion)
	}
	p := &Pyramid{temporal: Temporal(hv[1]), hasLimits: limits.Bools[0], rows: hv[3]}
	if hv[1] < 0 || !p.temporal.valid() {
		return nil, layoutErr("invalid temporal %d", hv[1])
	}
	if hv[2] < 1 || hv[2] > maxChunkRows {
		return nil, layoutErr("min_bucket_rows %d outside 1..%d", hv[2], maxChunkRows)
	}
	p.minRows = int(hv[2])
	if p.rows < 0 {
		return nil, layoutErr("negative row count %d", p.rows)
	}
	var cols [4][]int64
	for i, name := range []string{"level", "rows", "first", "last"} {
		col, err := column(index, name, shard.Int64)
		if err != nil {
			return nil, err
		}
		cols[i] = col.Ints
	}
	fullCol, err := column(index, "full", shard.Bool)
	if err != nil {
		return nil, err
	}
	var exactRows int64
	for i := 0; i < index.Rows; i++ {
		lvl, rows, first, last, full := cols[0][i], cols[1][i], cols[2][i], cols[3][i], fullCol.Bools[i]
		m := chunkMeta{first: first, last: last, rows: int(rows)}
		if rows < 1 || rows > maxChunkRows || first > last {
			return nil, layoutErr("chunk %d: %d rows over %d..%d", i, rows, first, last)
		}
		if lvl == -1 {
			if len(p.levels) > 0 {
				return nil, layoutErr("chunk %d: exact chunk after a level chunk", i)
			}
			if full {
				return nil, layoutErr("chunk %d: an exact chunk marked full", i)
			}
			if n := len(p.exact); n > 0 && p.exact[n-1].last > first {
				return nil, layoutErr("chunk %d: starts at %d, before the previous chunk ends", i, first)
			}
			exactRows += rows
			p.exact = append(p.exact, exactChunk{chunkMeta: m})
			continue
		}
		if lvl < 0 || lvl > maxShift || lvl%levelStep != 0 {
			return nil, layoutErr("chunk %d: invalid level %d", i, lvl)
		}
		n := len(p.levels)
		switch {
		case n > 0 && int64(p.levels[n-1].shift) == lvl:
			lc := p.levels[n-1].chunks
			if lc[len(lc)-1].last >= first {
				return nil, layoutErr("chunk %d: key %d does not follow the previous chunk", i, first)
			}
			if p.levels[n-1].full != full {
				return nil, layoutErr("chunk %d: full differs within level %d", i, lvl)
			}
		case n == 0 || int64(p.levels[n-1].shift)+levelStep == lvl:
			p.levels = append(p.levels, level{shift: uint8(lvl), full: full})
		default:
			return nil, layoutErr("chunk %d: level %d does not follow the previous level", i, lvl)
		}
		// Keys beyond what t>>shift can produce would overflow key<<shift.
		if first < minInt64>>lvl || last > maxInt64>>lvl || uint64(last)-uint64(first) < uint64(rows-1) {
			return nil, layoutErr("chunk %d: keys %d..%d cannot hold %d buckets at level %d", i, first, last, rows, lvl)
		}
		l := &p.levels[len(p.levels)-1]
		l.chunks = append(l.chunks, levelChunk{chunkMeta: m})
	}
	if exactRows != p.rows {
		return nil, layoutErr("exact chunks hold %d rows, header says %d", exactRows, p.rows)
	}
	if p.rows > 0 && len(p.exact) == 0 || p.rows == 0 && len(p.levels) > 0 {
		return nil, layoutErr("levels without exact rows")
	}
	p.numberChunks()
	return p, nil
}

const (
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

func column(t *shard.Table, name string, typ shard.Type) (*shard.Column, error) {
	c, ok := t.Column(name)
	if !ok {
		return nil, layoutErr("table %q has no column %q", t.Name, name)
	}
	if c.Type != typ {
		return nil, layoutErr("table %q column %q is %s, want %s", t.Name, name, c.Type, typ)
	}
	if c.Valid != nil && name != "v" && name != "limit" {
		for i, ok := range c.Valid {
			if !ok && !nullable(name) {
				return nil, layoutErr("table %q column %q row %d is null", t.Name, name, i)
			}
		}
	}
	return c, nil
}

func nullable(name string) bool {
	switch name {
	case "first_dt", "first_v", "last_dt", "last_v", "min_dt", "min_v", "max_dt", "max_v", "sum", "gap_dt", "usage_dt", "usage_v":
		return true
	}
	return false
}

// RowSpan is the time span of the summary's exact rows, first and last
// (ns); ok is false when it holds no row. A reader picks a series by time
// from it without loading the summary.
func (p *Pyramid) RowSpan() (first, last int64, ok bool) {
	for _, c := range p.Chunks() {
		if c.Level != -1 || c.Rows == 0 {
			continue
		}
		if !ok || c.First < first {
			first = c.First
		}
		if !ok || c.Last > last {
			last = c.Last
		}
		ok = true
	}
	return first, last, ok
}
