package pyramid

import (
	"sort"

	"github.com/dsight/dsight/internal/shard"
)

// Per-row evidence. A series built with Options.Evidence stores, beside each
// exact row, the source id and the row (zero-based) or line (one-based) of
// the point it came from, in the optional exact-chunk columns "src" and
// "line" (Int64, -1 unknown). A row formed from several points (identical
// duplicates, or a gap of conflicting ones) keeps the first point's. Buckets
// carry none: an envelope's min and max are rows, whose evidence is read from
// the exact rows.

// loadEvidence reads a chunk's evidence columns: both or neither.
func loadEvidence(id int, t *shard.Table) (src, line []int64, err error) {
	_, hasSrc := t.Column("src")
	_, hasLine := t.Column("line")
	if !hasSrc && !hasLine {
		return nil, nil, nil
	}
	sc, err := column(t, "src", shard.Int64)
	if err != nil {
		return nil, nil, err
	}
	lc, err := column(t, "line", shard.Int64)
	if err != nil {
		return nil, nil, err
	}
	for i := range sc.Ints {
		if sc.Ints[i] < -1 || lc.Ints[i] < -1 {
			return nil, nil, layoutErr("chunk %d row %d: evidence %d:%d is below -1", id, i, sc.Ints[i], lc.Ints[i])
		}
	}
	return sc.Ints, lc.Ints, nil
}

// Row is one exact row with its evidence (Source and Line -1 when unknown).
type Row struct {
	T            int64
	V            float64
	Valid        bool
	Source, Line int64
}

// appendEvidence appends rows [i, j) of c's evidence to the view's columns.
func (v *View) appendEvidence(c *exactChunk, i, j int) {
	if c.src != nil {
		v.Sources = append(v.Sources, c.src[i:j]...)
		v.Lines = append(v.Lines, c.line[i:j]...)
		return
	}
	for k := i; k < j; k++ {
		v.Sources = append(v.Sources, -1)
		v.Lines = append(v.Lines, -1)
	}
}

// RowsAt returns the exact rows at time tNS (several for an Event series).
// For a Setting series whose points at tNS disagree it returns, in place of
// the gap row, each distinct point recorded there, in arrival order. It
// reads only the exact chunks holding tNS; an unloaded one is an
// *IncompleteError naming it.
func (p *Pyramid) RowsAt(tNS int64) ([]Row, error) {
	out, err := p.exactRowsAt(tNS)
	if err != nil {
		return nil, err
	}
	if len(out) == 1 && !out[0].Valid {
		if alt := p.conflictsAt(tNS); alt != nil {
			return alt, nil
		}
	}
	return out, nil
}

// exactRowsAt is the stored rows at tNS.
func (p *Pyramid) exactRowsAt(tNS int64) ([]Row, error) {
	var out []Row
	var missing []int
	lo := sort.Search(len(p.exact), func(i int) bool { return p.exact[i].last >= tNS })
	for ci := lo; ci < len(p.exact) && p.exact[ci].first <= tNS; ci++ {
		c := &p.exact[ci]
		if !c.loaded {
			missing = append(missing, c.id)
			continue
		}
		for i := sort.Search(len(c.times), func(i int) bool { return c.times[i] >= tNS }); i < len(c.times) && c.times[i] == tNS; i++ {
			out = append(out, c.row(i))
		}
	}
	if missing != nil {
		return nil, &IncompleteError{Chunks: missing}
	}
	return out, nil
}

func (c *exactChunk) row(i int) Row {
	r := Row{T: c.times[i], V: c.values[i], Valid: c.valid[i], Source: -1, Line: -1}
	if c.src != nil {
		r.Source, r.Line = c.src[i], c.line[i]
	}
	return r
}
