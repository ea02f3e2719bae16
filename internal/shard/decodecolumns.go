package shard

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// parallelRows is the smallest table whose columns are decoded at once:
// below it a goroutine costs more than its column.
const parallelRows = 1 << 14

// columnsAtOnce decodes a large table's columns side by side, each on its
// own decoder over its own payload. A 100,000-request core is almost all
// one table, so this is the only parallelism its decode has; a one-shot
// question (dsight query) waits for it, and a second core halves it. The
// answer is the sequential decode's, error for error: the column headers
// are walked first, and any flaw there, or a table that might exceed the
// decoded-size budget (bounded from its payload sizes), falls back to the
// sequential path (done reports false, with d where it was); a column's
// error is the one the sequential decode would have stopped at, the first
// in column order. Where GOMAXPROCS is 1 (the page's wasm) it is never
// taken.
//
// Columns skip names are only checked and stepped over (skipped marks
// them; nil when nothing is skipped); a flaw in their headers falls back
// to the sequential path too.
func (d *decoder) columnsAtOnce(t *Table, tableWhere string, skipped []bool) (done bool, err error) {
	if t.Rows < parallelRows || len(t.Columns) < 2 || runtime.GOMAXPROCS(0) < 2 {
		return false, nil
	}
	start := d.r.off
	defer func() {
		if !done {
			d.r.off = start
			d.where = tableWhere
			clear(skipped)
		}
	}()
	// The walk: each column's name and where its header starts.
	heads := make([]int, len(t.Columns))
	seen := make(map[string]bool, len(t.Columns))
	bound := int64(0)
	for i := range t.Columns {
		name, err := d.name("column name")
		if err != nil || seen[name] {
			return false, nil
		}
		seen[name] = true
		t.Columns[i].Name = name
		heads[i] = d.r.off
		header, err := d.r.take(2)
		if err != nil {
			return false, nil
		}
		size, err := d.r.uvarint()
		if err != nil || size > uint64(d.r.remaining()) {
			return false, nil
		}
		d.r.off += int(size)
		if d.skips(t, name) {
			typ, enc := Type(header[0]), Encoding(header[1])
			if !typ.valid() || !enc.allows(typ) || size == 0 {
				return false, nil
			}
			skipped[i] = true
			continue
		}
		// Every decode costs at most its fixed per-row cost, a validity
		// slice and 36/16 bytes per payload byte (a UUID's text).
		bound += decodedCost(Type(header[0]), t.Rows, true) + 3*int64(size)
	}
	if bound > d.budget-d.decoded {
		return false, nil
	}
	end := d.r.off
	errs := make([]error, len(t.Columns))
	spent := make([]int64, len(t.Columns))
	var wg sync.WaitGroup
	for i := range t.Columns {
		if skipped != nil && skipped[i] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &t.Columns[i]
			sub := decoder{r: reader{b: d.r.b, off: heads[i]}, budget: math.MaxInt64,
				where: fmt.Sprintf("%s column %q", tableWhere, c.Name)}
			errs[i] = sub.column(c, t.Rows)
			spent[i] = sub.decoded
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return true, err
		}
		d.decoded += spent[i]
	}
	d.r.off = end
	d.where = tableWhere
	return true, nil
}
