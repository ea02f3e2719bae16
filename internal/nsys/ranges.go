package nsys

import (
	"cmp"
	"database/sql"
	"fmt"
	"slices"

	"github.com/dsight/dsight/internal/model"
)

// ranges reads NVTX_EVENTS: every row with an end is a range; those that
// end before they start or leave the capture are counted and dropped, and
// the rest are kept when their name is in a category, up to the limit in
// (start, end descending) order.
func (r *reader) ranges() error {
	const t = "NVTX_EVENTS"
	if !r.need(t, "start", "end") {
		return nil
	}
	cols := r.tables[t]
	text, textID, gtid := "NULL", "NULL", "NULL"
	if cols["text"] {
		text = "text"
	} else {
		r.missing(t + ".text")
	}
	if cols["textId"] {
		textID = "textId"
	} else {
		r.missing(t + ".textId")
	}
	if cols["globalTid"] {
		gtid = "globalTid"
	} else {
		r.missing(t + ".globalTid")
	}
	b := r.rangesFromFile(t)
	if b == nil {
		var err error
		if b, err = r.rangesFromDriver(t, text, textID, gtid); err != nil {
			return err
		}
	}
	p := r.p
	p.Counts, p.Names, p.Definitions, p.Ranges = b.counts, b.names, b.defs, b.ranges
	c := &p.Counts
	// cmp.Or would compare all three fields every time; the start alone
	// decides almost every comparison.
	order := func(a, b model.NVTXRange) int {
		if a.StartNS != b.StartNS {
			return cmp.Compare(a.StartNS, b.StartNS)
		}
		if a.EndNS != b.EndNS {
			return cmp.Compare(b.EndNS, a.EndNS)
		}
		return cmp.Compare(a.RowID, b.RowID)
	}
	// Exports are usually in start order already.
	if !slices.IsSortedFunc(p.Ranges, order) {
		slices.SortFunc(p.Ranges, order)
	}
	if int64(len(p.Ranges)) > p.Limit {
		p.Ranges = slices.Clone(p.Ranges[:p.Limit])
		p.Truncated = true
	}
	// Unselected rows left room unused. The room past the last range was
	// never written, so in a fresh allocation it is address space, not
	// resident memory; a copy would cost a second array while both exist
	// and a page fault per 4 KB of it. Only room larger than the ranges
	// themselves is given back.
	if cap(p.Ranges) > 2*len(p.Ranges) {
		p.Ranges = slices.Clone(p.Ranges)
	}
	c.Kept = int64(len(p.Ranges))
	return nil
}

// rangesFromDriver reads NVTX_EVENTS through database/sql; text, textID and
// gtid are the columns to select, or NULL.
func (r *reader) rangesFromDriver(t, text, textID, gtid string) (*rangeBuilder, error) {
	// Sized first: growing by appending copied every range about twice.
	var total int64
	if err := r.db.QueryRow(`SELECT count(*) FROM ` + t + ` WHERE "end" IS NOT NULL`).Scan(&total); err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	b := newRangeBuilder(r.p.Capture, r.names, total)
	rows, err := r.db.Query(`SELECT rowid, start, "end", ` + text + `, ` + textID + `, ` + gtid + ` FROM ` + t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	defer rows.Close()
	var (
		x   nvtxRow
		txt sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan(&x.rowid, &x.start, &x.end, &txt, &x.id, &x.tid); err != nil {
			return nil, fmt.Errorf("%s row %d: %w", t, x.rowid, err)
		}
		x.txt = txt
		b.add(&x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	return b, nil
}

// nvtxRow is one NVTX_EVENTS row as the reader uses it; txt is nil for
// NULL.
type nvtxRow struct {
	rowid, start int64
	end, id, tid sql.NullInt64
	txt          []byte
}

// rangeBuilder counts and keeps the rows of NVTX_EVENTS, whichever reader
// delivers them, so both give the same profile.
type rangeBuilder struct {
	capture   [2]int64
	strings   map[int64]string // StringIds
	counts    model.ProfileCounts
	names     []string
	defs      []model.NVTXDefinition
	ranges    []model.NVTXRange
	nameIndex map[string]int32
	byID      map[int64]int32 // names by StringIds id, resolved and classified once
}

const unselected, null = -1, -2

func newRangeBuilder(capture [2]int64, strings map[int64]string, size int64) *rangeBuilder {
	b := &rangeBuilder{capture: capture, strings: strings, ranges: make([]model.NVTXRange, 0, size),
		nameIndex: map[string]int32{}, byID: map[int64]int32{}}
	adviseHugePages(b.ranges)
	return b
}

func (b *rangeBuilder) classify(name string) int32 {
	if k, ok := b.nameIndex[name]; ok {
		return k
	}
	d, ok := Classify(name)
	if !ok {
		return unselected
	}
	k := int32(len(b.names))
	b.names = append(b.names, name)
	b.defs = append(b.defs, model.NVTXDefinition{Category: d.Category, Description: d.Description})
	b.nameIndex[name] = k
	return k
}

func (b *rangeBuilder) add(x *nvtxRow) {
	c := &b.counts
	c.Rows++
	if !x.end.Valid {
		c.Marks++
		return
	}
	if x.end.Int64 < x.start || x.start < b.capture[0] || x.end.Int64 > b.capture[1] {
		c.InvalidOrBoundary++
		return
	}
	c.Scanned++
	k := int32(null)
	switch {
	case x.txt != nil:
		if n, ok := b.nameIndex[string(x.txt)]; ok {
			k = n
		} else {
			k = b.classify(string(x.txt))
		}
	case x.id.Valid:
		n, ok := b.byID[x.id.Int64]
		if !ok {
			n = null
			if v, found := b.strings[x.id.Int64]; found {
				n = b.classify(v)
			}
			b.byID[x.id.Int64] = n
		}
		k = n
	}
	switch k {
	case null:
		c.NullNames++
		return
	case unselected:
		c.Unselected++
		return
	}
	c.Selected++
	g := int64(0)
	if x.tid.Valid {
		g = x.tid.Int64
	}
	b.ranges = append(b.ranges, model.NVTXRange{StartNS: x.start, EndNS: x.end.Int64, GlobalTID: g, RowID: x.rowid, Name: k})
}
