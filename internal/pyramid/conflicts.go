package pyramid

import (
	"fmt"
	"sort"

	"github.com/dsight/dsight/internal/shard"
)

// Conflicting settings. Two different limits recorded for one scope at one
// time are both evidence: neither is invented and neither wins. The row at
// that timestamp stays a gap — no single value is held there, so
// statistics, plots, paired limits and the held value are what they were —
// and a Setting series also keeps, beside that row, each distinct point of
// the group in arrival order with its evidence (identical duplicates count
// once; a null or non-finite point is one null point). RowsAt answers them
// in place of the gap, so the carried setting lists every value recorded at
// its timestamp instead of one null.
//
// They are stored in the optional table ConflictsTable (columns t, v, src,
// line; v null for a null point), written only when the series has
// conflicts, so a series without any lays out exactly as before and an older
// reader, which looks tables up by name, ignores it.

// ConflictsTable names the table of a Setting series' conflicting points.
const ConflictsTable = "pyramid.conflicts"

// sameSetting reports whether two points of one group are the same setting:
// equal numbers (0 and -0 agree), or both null.
func sameSetting(v float64, valid bool, w float64, wValid bool) bool {
	if !valid || !wValid {
		return valid == wValid
	}
	return v == w
}

// noteSetting records a further point of the pending Setting group when it
// differs from every point the group has so far.
func (b *Builder) noteSetting(v float64, valid bool, source, row int64) {
	if !b.evidence {
		source, row = -1, -1
	}
	if len(b.alt) == 0 {
		if sameSetting(b.pendingV, b.pendingFirstValid, v, valid) {
			return
		}
		src, ln := b.pendingSrc, b.pendingLn
		if !b.evidence {
			src, ln = -1, -1
		}
		b.alt = append(b.alt, b.settingRow(b.pendingT, b.pendingV, b.pendingFirstValid, src, ln))
	}
	for _, r := range b.alt {
		if sameSetting(r.V, r.Valid, v, valid) {
			return
		}
	}
	b.alt = append(b.alt, b.settingRow(b.pendingT, v, valid, source, row))
}

func (b *Builder) settingRow(t int64, v float64, valid bool, source, row int64) Row {
	if !valid {
		v = 0 // a null's value is not stored
	}
	return Row{T: t, V: v, Valid: valid, Source: max(source, -1), Line: max(row, -1)}
}

// flushConflicts moves the pending group's distinct points, when it had
// several, to the series' conflicts.
func (b *Builder) flushConflicts() {
	if len(b.alt) > 1 {
		b.conflicts = append(b.conflicts, b.alt...)
	}
	b.alt = b.alt[:0]
}

// Conflicts is every distinct point of the Setting series' timestamps whose
// points disagree, in time and then arrival order.
func (p *Pyramid) Conflicts() []Row { return append([]Row(nil), p.conflicts...) }

// conflictsAt is the distinct points recorded at tNS when they disagree.
func (p *Pyramid) conflictsAt(tNS int64) []Row {
	lo := sort.Search(len(p.conflicts), func(i int) bool { return p.conflicts[i].T >= tNS })
	hi := lo
	for hi < len(p.conflicts) && p.conflicts[hi].T == tNS {
		hi++
	}
	if hi == lo {
		return nil
	}
	return append([]Row(nil), p.conflicts[lo:hi]...)
}

// conflictsTable lays the conflicts out; nil when there are none.
func (p *Pyramid) conflictsTable() *shard.Table {
	n := len(p.conflicts)
	if n == 0 {
		return nil
	}
	t := shard.Table{Name: ConflictsTable, Rows: n, Columns: []shard.Column{
		{Name: "t", Type: shard.Int64, Ints: make([]int64, n)},
		{Name: "v", Type: shard.Float64, Floats: make([]float64, n), Valid: make([]bool, n)},
		{Name: "src", Type: shard.Int64, Ints: make([]int64, n)},
		{Name: "line", Type: shard.Int64, Ints: make([]int64, n)},
	}}
	for i, r := range p.conflicts {
		t.Columns[0].Ints[i], t.Columns[1].Floats[i], t.Columns[1].Valid[i] = r.T, r.V, r.Valid
		t.Columns[2].Ints[i], t.Columns[3].Ints[i] = r.Source, r.Line
	}
	return &t
}

// LoadConflicts reads ConflictsTable into a pyramid from Open, beside Load
// of its chunks (FromShard does both). Every group must hold at least two
// points, in time order, of a Setting series.
func (p *Pyramid) LoadConflicts(t *shard.Table) error {
	if p.temporal != Setting {
		return layoutErr("a %s series has a conflicts table", p.temporal)
	}
	ts, err := column(t, "t", shard.Int64)
	if err != nil {
		return err
	}
	vs, err := column(t, "v", shard.Float64)
	if err != nil {
		return err
	}
	src, err := column(t, "src", shard.Int64)
	if err != nil {
		return err
	}
	ln, err := column(t, "line", shard.Int64)
	if err != nil {
		return err
	}
	rows := make([]Row, t.Rows)
	for i := range rows {
		valid := vs.Valid == nil || vs.Valid[i]
		r := Row{T: ts.Ints[i], V: vs.Floats[i], Valid: valid, Source: src.Ints[i], Line: ln.Ints[i]}
		if !valid {
			r.V = 0
		}
		if r.Source < -1 || r.Line < -1 {
			return layoutErr("conflict %d: evidence %d:%d is below -1", i, r.Source, r.Line)
		}
		if i > 0 && r.T < rows[i-1].T {
			return layoutErr("conflict %d: time %d is before the previous one", i, r.T)
		}
		rows[i] = r
	}
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].T == rows[i].T {
			j++
		}
		if j-i < 2 {
			return layoutErr("conflict %d: a single point at %d is no conflict", i, rows[i].T)
		}
		i = j
	}
	p.conflicts = rows
	return nil
}

// checkConflicts verifies, once every exact chunk is loaded, that each
// conflict sits on a gap row.
func (p *Pyramid) checkConflicts() error {
	for i := 0; i < len(p.conflicts); {
		t := p.conflicts[i].T
		rows, err := p.exactRowsAt(t)
		if err != nil {
			return err
		}
		if len(rows) != 1 || rows[0].Valid {
			return fmt.Errorf("%w: conflicts at %d do not sit on one gap row", ErrLayout, t)
		}
		for i < len(p.conflicts) && p.conflicts[i].T == t {
			i++
		}
	}
	return nil
}
