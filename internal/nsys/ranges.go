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
	// Sized first: growing by appending copied every range about twice.
	var total int64
	if err := r.db.QueryRow(`SELECT count(*) FROM ` + t + ` WHERE "end" IS NOT NULL`).Scan(&total); err != nil {
		return fmt.Errorf("%s: %w", t, err)
	}
	r.p.Ranges = make([]model.NVTXRange, 0, total)
	rows, err := r.db.Query(`SELECT rowid, start, "end", ` + text + `, ` + textID + `, ` + gtid + ` FROM ` + t)
	if err != nil {
		return fmt.Errorf("%s: %w", t, err)
	}
	defer rows.Close()
	p := r.p
	c := &p.Counts
	nameIndex := map[string]int32{}
	// Names by StringIds id, resolved and classified once.
	byID := map[int64]int32{}
	const unselected, null = -1, -2
	classify := func(name string) int32 {
		if k, ok := nameIndex[name]; ok {
			return k
		}
		d, ok := Classify(name)
		if !ok {
			return unselected
		}
		k := int32(len(p.Names))
		p.Names = append(p.Names, name)
		p.Definitions = append(p.Definitions, model.NVTXDefinition{Category: d.Category, Description: d.Description})
		nameIndex[name] = k
		return k
	}
	var (
		rowid, start int64
		end, tid, id sql.NullInt64
		txt          sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan(&rowid, &start, &end, &txt, &id, &tid); err != nil {
			return fmt.Errorf("%s row %d: %w", t, rowid, err)
		}
		c.Rows++
		if !end.Valid {
			c.Marks++
			continue
		}
		if end.Int64 < start || start < p.Capture[0] || end.Int64 > p.Capture[1] {
			c.InvalidOrBoundary++
			continue
		}
		c.Scanned++
		k := int32(null)
		switch {
		case txt != nil:
			if n, ok := nameIndex[string(txt)]; ok {
				k = n
			} else {
				k = classify(string(txt))
			}
		case id.Valid:
			n, ok := byID[id.Int64]
			if !ok {
				n = null
				if v, found := r.names[id.Int64]; found {
					n = classify(v)
				}
				byID[id.Int64] = n
			}
			k = n
		}
		switch k {
		case null:
			c.NullNames++
			continue
		case unselected:
			c.Unselected++
			continue
		}
		c.Selected++
		g := int64(0)
		if tid.Valid {
			g = tid.Int64
		}
		p.Ranges = append(p.Ranges, model.NVTXRange{StartNS: start, EndNS: end.Int64, GlobalTID: g, RowID: rowid, Name: k})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", t, err)
	}
	order := func(a, b model.NVTXRange) int {
		return cmp.Or(cmp.Compare(a.StartNS, b.StartNS), cmp.Compare(b.EndNS, a.EndNS), cmp.Compare(a.RowID, b.RowID))
	}
	// Exports are usually in start order already.
	if !slices.IsSortedFunc(p.Ranges, order) {
		slices.SortFunc(p.Ranges, order)
	}
	if int64(len(p.Ranges)) > p.Limit {
		p.Ranges = slices.Clone(p.Ranges[:p.Limit])
		p.Truncated = true
	}
	if cap(p.Ranges) > len(p.Ranges)+len(p.Ranges)/8 {
		p.Ranges = slices.Clone(p.Ranges) // unselected rows left room unused
	}
	c.Kept = int64(len(p.Ranges))
	return nil
}
