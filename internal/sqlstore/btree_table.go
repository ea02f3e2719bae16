package sqlstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Table b-tree page types.
const (
	pageTableInterior = 0x05
	pageTableLeaf     = 0x0d
)

// rowidTree writes a rowid table's b-tree (a table b-tree: every row in
// the leaves under its rowid, interior cells holding only a child and the
// largest rowid below it) from rows given in ascending rowid order. A row
// too large for its page spills into overflow pages, as SQLite's own
// writer would spill it. Pages go out sequentially from first, the root
// last to root.
type rowidTree struct {
	out      io.Writer
	writeAt  io.WriterAt
	pageSize int
	usable   int
	root     uint32
	next     uint32

	levels []*tablePage // nil where the level's next page has not begun
	free   []*tablePage
	last   int64
	rows   int64
	err    error
	ovfl   []byte
	// cell is leafCell's scratch: the page copies a cell in, so one buffer
	// serves every row (a cell allocated per row was ~2M allocations of a
	// 100k-request traced store).
	cell []byte
}

// tablePage is one table b-tree page being filled.
type tablePage struct {
	buf     []byte
	leaf    bool
	n       int
	content int
	right   uint32
	maxKey  int64
}

func newRowidTree(out io.Writer, writeAt io.WriterAt, pageSize, reserved int, first, root uint32) *rowidTree {
	return &rowidTree{out: out, writeAt: writeAt, pageSize: pageSize, usable: pageSize - reserved, root: root, next: first,
		ovfl: make([]byte, pageSize)}
}

func (t *rowidTree) page(leaf bool) *tablePage {
	var p *tablePage
	if k := len(t.free); k > 0 {
		p, t.free = t.free[k-1], t.free[:k-1]
		clear(p.buf)
	} else {
		p = &tablePage{buf: make([]byte, t.pageSize)}
	}
	p.leaf, p.n, p.content, p.right, p.maxKey = leaf, 0, t.usable, 0, 0
	return p
}

func (p *tablePage) headerSize() int {
	if p.leaf {
		return 8
	}
	return 12
}

// put adds a cell if it fits.
func (p *tablePage) put(cell []byte, key int64) bool {
	if p.content-len(cell) < p.headerSize()+2*(p.n+1) {
		return false
	}
	p.content -= len(cell)
	copy(p.buf[p.content:], cell)
	binary.BigEndian.PutUint16(p.buf[p.headerSize()+2*p.n:], uint16(p.content))
	p.n++
	p.maxKey = key
	return true
}

func (p *tablePage) finish() []byte {
	h := p.buf
	if p.leaf {
		h[0] = pageTableLeaf
	} else {
		h[0] = pageTableInterior
		binary.BigEndian.PutUint32(h[8:], p.right)
	}
	binary.BigEndian.PutUint16(h[3:], uint16(p.n))
	binary.BigEndian.PutUint16(h[5:], uint16(p.content&0xffff))
	return p.buf
}

func (t *rowidTree) write(p *tablePage) (uint32, error) {
	no, err := allocPage(t.out, &t.next, t.pageSize)
	if err != nil {
		return 0, err
	}
	if _, err := t.out.Write(p.finish()); err != nil {
		return 0, err
	}
	t.free = append(t.free, p)
	return no, nil
}

// add appends the row rowid with its record; rowids must ascend.
func (t *rowidTree) add(rowid int64, rec []byte) error {
	if t.err != nil {
		return t.err
	}
	if t.rows > 0 && rowid <= t.last {
		return errors.New("rowids out of order or repeated")
	}
	t.last = rowid
	t.rows++
	cell, err := t.leafCell(rowid, rec)
	if err == nil {
		err = t.insert(0, cell, rowid)
		t.cell = cell[:0] // kept for the next row: the page holds a copy
	}
	t.err = err
	return err
}

// leafCell is the payload size, the rowid and as much of rec as the page
// keeps; the rest goes to overflow pages, written now, so the cell ends
// with the first one's number (https://sqlite.org/fileformat.html,
// "Cell Payload Overflow Pages"). The cell is valid until the next call.
func (t *rowidTree) leafCell(rowid int64, rec []byte) ([]byte, error) {
	cell := appendVarint(t.cell[:0], uint64(len(rec)))
	cell = appendVarint(cell, uint64(rowid))
	u := t.usable
	x := u - 35
	if len(rec) <= x {
		return append(cell, rec...), nil
	}
	m := (u-12)*32/255 - 23
	local := m + (len(rec)-m)%(u-4)
	if local > x {
		local = m
	}
	cell = append(cell, rec[:local]...)
	rest := rec[local:]
	for first := true; len(rest) > 0; first = false {
		no, err := allocPage(t.out, &t.next, t.pageSize)
		if err != nil {
			return nil, err
		}
		if first {
			cell = binary.BigEndian.AppendUint32(cell, no)
		}
		k := min(len(rest), u-4)
		clear(t.ovfl)
		var next uint32
		if k < len(rest) {
			next = pageAfter(no, t.pageSize)
		}
		binary.BigEndian.PutUint32(t.ovfl, next)
		copy(t.ovfl[4:], rest[:k])
		if _, err := t.out.Write(t.ovfl); err != nil {
			return nil, err
		}
		rest = rest[k:]
	}
	return cell, nil
}

// insert adds a cell to level, finishing the level's page when it is full
// and handing it up under its largest rowid.
func (t *rowidTree) insert(level int, cell []byte, key int64) error {
	if level == len(t.levels) {
		t.levels = append(t.levels, nil)
	}
	if t.levels[level] == nil {
		t.levels[level] = t.page(level == 0)
	}
	p := t.levels[level]
	if p.put(cell, key) {
		return nil
	}
	if level > 0 {
		// cell's child becomes the full page's rightmost; the page goes
		// up under cell's key, the largest below it.
		p.right = binary.BigEndian.Uint32(cell)
		p.maxKey = key
	}
	below := p.maxKey
	no, err := t.write(p)
	if err != nil {
		return err
	}
	t.levels[level] = nil
	if err := t.insert(level+1, t.interiorCell(no, below), below); err != nil {
		return err
	}
	if level == 0 {
		return t.insert(0, cell, key)
	}
	return nil
}

func (t *rowidTree) interiorCell(child uint32, key int64) []byte {
	return appendVarint(binary.BigEndian.AppendUint32(nil, child), uint64(key))
}

// close writes the pages still open, bottom-up, the top one to the root.
func (t *rowidTree) close() error {
	if t.err != nil {
		return t.err
	}
	if len(t.levels) == 0 {
		_, err := t.writeAt.WriteAt(t.page(true).finish(), int64(t.root-1)*int64(t.pageSize))
		return err
	}
	var carry uint32
	for level, p := range t.levels {
		if p == nil {
			continue // the level just split: carry becomes the rightmost child above
		}
		if !p.leaf {
			p.right = carry
		}
		if level == len(t.levels)-1 {
			_, err := t.writeAt.WriteAt(p.finish(), int64(t.root-1)*int64(t.pageSize))
			return err
		}
		no, err := t.write(p)
		if err != nil {
			return err
		}
		carry = no
	}
	return errors.New("sqlstore: the b-tree has no top page")
}

// value appends v, one of the Go types the store's rows carry, with the
// storage class SQLite would give it in a column of the declared type:
// integers in INTEGER columns, reals in REAL ones, text in TEXT ones.
func (r *record) value(v any) error {
	switch x := v.(type) {
	case nil:
		r.null()
	case int:
		r.int(int64(x))
	case int32:
		r.int(int64(x))
	case int64:
		r.int(x)
	case bool:
		r.int(int64(boolInt(x)))
	case float64:
		r.real(x)
	case string:
		r.text(x)
	default:
		return fmt.Errorf("sqlstore: no SQL value for %T", v)
	}
	return nil
}
