package shard

import "fmt"

// RowPick keeps of a table only the rows its key column matches. A
// one-request question (dsight query request ID) so decodes of a
// 100,000-row request table the one row it prints: the key column and the
// others are walked in place, checked value by value, and only the kept
// rows' values are stored, so the process touches no memory per row.
//
// Exactly one of Text, Of and Rows is set.
type RowPick struct {
	Key string // the column matched (none for Rows)
	// Text keeps the rows whose String key equals it (never a null row).
	Text string
	// Of keeps the rows whose Int64 key holds a row kept of table Of, a
	// table picked earlier in the same decode (a reference to it).
	Of string
	// Rows keeps these rows (ascending row numbers, each in the table).
	Rows []int
}

// PickRows names the pick of a table, nil to decode it whole.
type PickRows func(table string) *RowPick

// DecodeTableFramesPicking is DecodeTableFramesSkipping keeping, of each
// table pick names, only the rows it matches, in row order. kept[i] lists
// the rows kept of table i, as row numbers of the whole table (nil for a
// table decoded whole).
func DecodeTableFramesPicking(frames [][]byte, shardBytes int, skip SkipColumn, pick PickRows) (tables []Table, kept [][]int, err error) {
	budget := DecodeBudget(shardBytes)
	tables = make([]Table, len(frames))
	kept = make([][]int, len(frames))
	seen := make(map[string]bool, len(frames))
	picked := map[string][]int{}
	var decoded int64
	for i, b := range frames {
		if len(b) > maxRawBytes {
			return nil, nil, fmt.Errorf("%w: table frame %d: %d bytes exceeds the limit of %d", ErrCorrupt, i, len(b), maxRawBytes)
		}
		d := decoder{r: reader{b: b}, decoded: decoded, budget: budget, where: fmt.Sprintf("table frame %d", i), skip: skip}
		name, err := d.peekFrameName()
		if err != nil {
			return nil, nil, err
		}
		if p := pick(name); p != nil {
			kept[i], err = d.pickedTable(&tables[i], p, picked)
			picked[name] = kept[i]
		} else {
			err = d.table(&tables[i])
		}
		if err != nil {
			return nil, nil, err
		}
		if d.r.remaining() != 0 {
			return nil, nil, d.fail("%d trailing bytes after the table", d.r.remaining())
		}
		if seen[tables[i].Name] {
			return nil, nil, d.fail("duplicate table name")
		}
		seen[tables[i].Name] = true
		decoded = d.decoded
	}
	return tables, kept, nil
}

// peekFrameName reads a table frame's name and steps back.
func (d *decoder) peekFrameName() (string, error) {
	start := d.r.off
	name, err := d.name("table name")
	d.r.off = start
	return name, err
}

// pickedColumn is one column's header and where its payload lies.
type pickedColumn struct {
	name       string
	typ        Type
	enc        Encoding
	start, end int
}

// pickedTable decodes table t keeping the rows p matches; picked holds the
// rows kept of the tables picked before.
func (d *decoder) pickedTable(t *Table, p *RowPick, picked map[string][]int) ([]int, error) {
	name, err := d.name("table name")
	if err != nil {
		return nil, err
	}
	t.Name = name
	d.where = fmt.Sprintf("table %q", name)
	rows, err := d.uvarint("row count")
	if err != nil {
		return nil, err
	}
	if rows > maxRows {
		return nil, d.fail("%d rows exceeds the limit of %d", rows, maxRows)
	}
	n, err := d.count("column count", maxColumns, minColumnBytes)
	if err != nil {
		return nil, err
	}
	cols := make([]pickedColumn, n)
	seen := make(map[string]bool, n)
	key := -1
	tableWhere := d.where
	for i := range cols {
		d.where = tableWhere
		c := &cols[i]
		if c.name, err = d.name("column name"); err != nil {
			return nil, err
		}
		d.where = fmt.Sprintf("%s column %q", tableWhere, c.name)
		if seen[c.name] {
			return nil, d.fail("duplicate column name")
		}
		seen[c.name] = true
		header, err := d.r.take(2)
		if err != nil {
			return nil, d.fail("truncated column type and encoding")
		}
		c.typ, c.enc = Type(header[0]), Encoding(header[1])
		if !c.typ.valid() {
			return nil, d.fail("unknown column type %d", header[0])
		}
		if !c.enc.allows(c.typ) {
			return nil, d.fail("encoding %s is not defined for %s columns", c.enc, c.typ)
		}
		size, err := d.uvarint("column payload length")
		if err != nil {
			return nil, err
		}
		if size == 0 || size > uint64(d.r.remaining()) {
			return nil, d.fail("column payload of %d bytes but only %d remain", size, d.r.remaining())
		}
		c.start, c.end = d.r.off, d.r.off+int(size)
		d.r.off = c.end
		if c.name == p.Key {
			key = i
		}
	}
	end := d.r.off
	d.where = tableWhere
	if key < 0 && p.Rows == nil {
		return nil, d.fail("no key column %s to pick rows by", p.Key)
	}
	var keep []int
	if p.Rows != nil {
		for k, i := range p.Rows {
			if i < 0 || i >= int(rows) || (k > 0 && i <= p.Rows[k-1]) {
				return nil, d.fail("row %d picked of %d rows, or out of order", i, rows)
			}
		}
		keep = p.Rows
	} else if p.Of != "" {
		of, ok := picked[p.Of]
		if !ok {
			return nil, d.fail("rows picked by table %s, not read before it", p.Of)
		}
		keep, err = d.keyInts(cols[key], int(rows), of)
	} else {
		keep, err = d.keyText(cols[key], int(rows), p.Text)
	}
	if err != nil {
		return nil, err
	}
	t.Rows = len(keep)
	for _, c := range cols {
		if d.skips(t, c.name) {
			continue
		}
		col := Column{Name: c.name, Type: c.typ}
		d.where = fmt.Sprintf("%s column %q", tableWhere, c.name)
		if err := d.pickColumn(&col, c, int(rows), keep); err != nil {
			return nil, err
		}
		t.Columns = append(t.Columns, col)
	}
	d.where = tableWhere
	d.r.off = end
	return keep, nil
}
