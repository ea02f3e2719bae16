package sqlstore

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
)

// A bulk table is a WITHOUT ROWID table of numeric columns whose rows the
// writer produces in key order (metric points, NVTX ranges). Through
// SQLite each row costs a VDBE program run, a uniqueness seek and a b-tree
// insert with its page balancing (~1 µs); a 100M-sample capture spent
// 72 % of its build there. Rows that arrive sorted need none of that:
// bulkTree lays the table's index b-tree out bottom-up, page after page,
// in the file format SQLite documents (https://sqlite.org/fileformat.html,
// "B-tree Pages" and "Record Format"), and Write hands the finished tree
// to the root page SQLite allocated when it created the table. The table
// then reads as SQLite would have written it (the same rows, keys and
// types); only its pages are full.

// Index b-tree page types.
const (
	pageIndexInterior = 0x02
	pageIndexLeaf     = 0x0a
)

// record encodes one row in SQLite's record format. Only the types a
// bulk table holds: integers, 8-byte reals, text and NULL. key holds the
// first keyCols values for the order check: a real in key, an integer in
// keyI, a text as its index in keyS.
type record struct {
	types []byte // serial types, as varints
	body  []byte
	key   []float64
	keyI  []int64
	kind  []byte // keyReal, keyInt, keyNull or keyText
	keyS  []string
	out   []byte
	// intSmall: schema format 4 stores 0 and 1 as serial types 8 and 9.
	intSmall bool
	// valuesOnly skips the key: a row of a rowid table, or one whose order
	// is checked on a key record of its own, needs only its bytes, and
	// keeping each of a span row's 22 values three ways was a third of its
	// encoding (a string kept is a pointer written under the GC's barrier).
	valuesOnly bool
}

// The kinds of a record's values, for the order check.
const (
	keyReal byte = iota
	keyInt
	keyNull
	keyText
)

func (r *record) reset() {
	r.types, r.body = r.types[:0], r.body[:0]
	r.key, r.keyI, r.kind, r.keyS = r.key[:0], r.keyI[:0], r.kind[:0], r.keyS[:0]
}

// int appends an integer as the smallest serial type SQLite would use.
func (r *record) int(v int64) {
	if !r.valuesOnly {
		r.key, r.keyI, r.kind = append(r.key, float64(v)), append(r.keyI, v), append(r.kind, keyInt)
	}
	switch {
	case r.intSmall && (v == 0 || v == 1):
		r.types = append(r.types, byte(8+v))
	case v >= math.MinInt8 && v <= math.MaxInt8:
		r.types, r.body = append(r.types, 1), append(r.body, byte(v))
	case v >= math.MinInt16 && v <= math.MaxInt16:
		r.types, r.body = append(r.types, 2), binary.BigEndian.AppendUint16(r.body, uint16(v))
	case v >= -1<<23 && v < 1<<23:
		r.types, r.body = append(r.types, 3), append(r.body, byte(v>>16), byte(v>>8), byte(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		r.types, r.body = append(r.types, 4), binary.BigEndian.AppendUint32(r.body, uint32(v))
	case v >= -1<<47 && v < 1<<47:
		r.types, r.body = append(r.types, 5), append(r.body, byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	default:
		r.types, r.body = append(r.types, 6), binary.BigEndian.AppendUint64(r.body, uint64(v))
	}
}

// real appends a float as an 8-byte IEEE value (serial type 7). SQLite
// itself would store an integral value of a REAL column as an integer
// and convert it back on reading; the 8-byte form reads the same.
func (r *record) real(v float64) {
	if !r.valuesOnly {
		r.key, r.keyI, r.kind = append(r.key, v), append(r.keyI, 0), append(r.kind, keyReal)
	}
	r.types, r.body = append(r.types, 7), binary.BigEndian.AppendUint64(r.body, math.Float64bits(v))
}

// null appends SQL NULL (a key column only of an index on a nullable
// column).
func (r *record) null() {
	if !r.valuesOnly {
		r.key, r.keyI, r.kind = append(r.key, math.NaN()), append(r.keyI, 0), append(r.kind, keyNull)
	}
	r.types = append(r.types, 0)
}

// text appends a string as UTF-8 text (serial type 13+2n), its bytes as
// they are, as sqlite3_bind_text stores them.
func (r *record) text(s string) {
	if !r.valuesOnly {
		r.key, r.keyI, r.kind = append(r.key, math.NaN()), append(r.keyI, int64(len(r.keyS))), append(r.kind, keyText)
		r.keyS = append(r.keyS, s)
	}
	r.types = appendVarint(r.types, uint64(13+2*len(s)))
	r.body = append(r.body, s...)
}

// bytes is the encoded record: header size, serial types, body.
func (r *record) bytes() []byte {
	h := len(r.types) + 1
	for varintLen(uint64(h)) != h-len(r.types) {
		h++
	}
	r.out = appendVarint(r.out[:0], uint64(h))
	r.out = append(r.out, r.types...)
	// Kept in r.out, so the next row reuses the room: returning the
	// append alone allocated once per row.
	r.out = append(r.out, r.body...)
	return r.out
}

// appendVarint appends v as SQLite's varint.
func appendVarint(b []byte, v uint64) []byte {
	var tmp [9]byte
	return append(b, tmp[:putVarint(tmp[:], v)]...)
}

// compareKeys orders two rows' first n values as SQLite does: NULL
// first, then numbers numerically, then text by its bytes (BINARY).
func compareKeys(a, b *record, n int) int {
	for i := range n {
		var c int
		ka, kb := a.kind[i], b.kind[i]
		if ka == keyInt && kb == keyInt {
			switch {
			case a.keyI[i] < b.keyI[i]:
				c = -1
			case a.keyI[i] > b.keyI[i]:
				c = 1
			}
		} else if ka >= keyNull || kb >= keyNull {
			switch {
			case ka == keyText && kb == keyText:
				c = strings.Compare(a.keyS[a.keyI[i]], b.keyS[b.keyI[i]])
			case ka == kb:
				c = 0
			case ka == keyNull || (kb == keyText):
				c = -1
			default:
				c = 1
			}
		} else {
			switch {
			case a.key[i] < b.key[i]:
				c = -1
			case a.key[i] > b.key[i]:
				c = 1
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// btreePage is one index b-tree page being filled: the header at 0, the
// cell pointer array after it, cell content growing down from the end.
type btreePage struct {
	buf      []byte
	leaf     bool
	n        int // cells
	content  int // offset of the lowest cell
	lastSize int // size of the last cell added (the lowest)
	right    uint32
	end      int // the usable size: where the first cell ends
}

func (p *btreePage) headerSize() int {
	if p.leaf {
		return 8
	}
	return 12
}

func (p *btreePage) reset(usable int, leaf bool) {
	clear(p.buf)
	p.leaf, p.n, p.content, p.lastSize, p.right, p.end = leaf, 0, usable, 0, 0, usable
}

// cellSize is the size of a cell holding rec (a left child pointer on
// interior pages).
func (p *btreePage) cellSize(rec []byte) int {
	n := varintLen(uint64(len(rec))) + len(rec)
	if !p.leaf {
		n += 4
	}
	return n
}

func (p *btreePage) fits(rec []byte) bool {
	return p.content-p.cellSize(rec) >= p.headerSize()+2*(p.n+1)
}

func (p *btreePage) add(rec []byte, child uint32) {
	size := p.cellSize(rec)
	p.content -= size
	at := p.content
	if !p.leaf {
		binary.BigEndian.PutUint32(p.buf[at:], child)
		at += 4
	}
	at += putVarint(p.buf[at:], uint64(len(rec)))
	copy(p.buf[at:], rec)
	binary.BigEndian.PutUint16(p.buf[p.headerSize()+2*p.n:], uint16(p.content))
	p.n++
	p.lastSize = size
}

// popLast removes the last cell added and returns its record (a copy)
// and left child.
func (p *btreePage) popLast() (rec []byte, child uint32) {
	at := p.content
	if !p.leaf {
		child = binary.BigEndian.Uint32(p.buf[at:])
		at += 4
	}
	n, k := readVarint(p.buf[at:])
	rec = append([]byte(nil), p.buf[at+k:at+k+int(n)]...)
	clear(p.buf[p.content : p.content+p.lastSize])
	p.n--
	p.content += p.lastSize
	binary.BigEndian.PutUint16(p.buf[p.headerSize()+2*p.n:], 0)
	// The new last cell's size is the distance to the one above it: cells
	// are contiguous, the first added ending at the usable size.
	p.lastSize = 0
	if p.n > 0 {
		above := p.end
		if p.n > 1 {
			above = int(binary.BigEndian.Uint16(p.buf[p.headerSize()+2*(p.n-2):]))
		}
		p.lastSize = above - p.content
	}
	return rec, child
}

// finish writes the page header.
func (p *btreePage) finish() []byte {
	h := p.buf
	if p.leaf {
		h[0] = pageIndexLeaf
	} else {
		h[0] = pageIndexInterior
		binary.BigEndian.PutUint32(h[8:], p.right)
	}
	binary.BigEndian.PutUint16(h[3:], uint16(p.n))
	binary.BigEndian.PutUint16(h[5:], uint16(p.content&0xffff)) // 65536 is written 0
	return p.buf
}

// pendingSplit is a full page kept back with the entry that did not fit:
// that entry becomes the divider above the page once another entry
// follows it. If none does, the page gives its last entry up as the
// divider instead, so no page is left empty.
type pendingSplit struct {
	page *btreePage
	div  []byte
}

// bulkTree writes one index b-tree from rows given in strictly ascending
// key order. Pages go out sequentially from first; the root, finished
// last, goes to root.
type bulkTree struct {
	out      io.Writer // positioned at page first
	writeAt  io.WriterAt
	pageSize int
	usable   int
	root     uint32
	next     uint32 // next page number to write
	maxLocal int    // the largest payload an index page keeps on the page
	order    keyOrder

	levels  []*btreePage
	pending []*pendingSplit
	free    []*btreePage
	rows    int64
	err     error
}

func newBulkTree(out io.Writer, writeAt io.WriterAt, pageSize, reserved int, first, root uint32, keyCols int) *bulkTree {
	usable := pageSize - reserved
	t := &bulkTree{out: out, writeAt: writeAt, pageSize: pageSize, usable: usable, root: root, next: first,
		maxLocal: (usable-12)*64/255 - 23, order: keyOrder{keyCols: keyCols}}
	t.levels = []*btreePage{t.page(true)}
	t.pending = []*pendingSplit{nil}
	return t
}

func (t *bulkTree) page(leaf bool) *btreePage {
	var p *btreePage
	if k := len(t.free); k > 0 {
		p, t.free = t.free[k-1], t.free[:k-1]
	} else {
		p = &btreePage{buf: make([]byte, t.pageSize)}
	}
	p.reset(t.usable, leaf)
	return p
}

// add appends one row; r's key must be greater than the previous row's.
func (t *bulkTree) add(r *record) error { return t.addEncoded(r.bytes(), r) }

// addEncoded appends a row already encoded as rec, whose key key holds
// (key may hold the key columns only).
func (t *bulkTree) addEncoded(rec []byte, key *record) error {
	if t.err != nil {
		return t.err
	}
	if err := t.order.next(key); err != nil {
		return err
	}
	return t.addOrdered(rec)
}

// keyOrder checks a tree's keys row by row: each above the previous
// one, none NULL (unless the tree is an index on a nullable column) or
// NaN. A tree keeps one; a goroutine encoding rows for a tree it does not
// own (rowpipe.go) keeps its own.
type keyOrder struct {
	keyCols int
	// nullKeys: an index on a nullable column, whose key may hold NULL.
	nullKeys bool
	started  bool
	prev     record
}

// next checks key, the key columns of the row after the previous one.
func (o *keyOrder) next(key *record) error {
	if key.valuesOnly {
		return errors.New("sqlstore: a key record kept no key")
	}
	if o.started && compareKeys(&o.prev, key, o.keyCols) >= 0 {
		return errors.New("rows out of key order or a repeated key")
	}
	for i := range o.keyCols {
		if k := key.kind[i]; (k == keyNull && !o.nullKeys) || (k == keyReal && math.IsNaN(key.key[i])) {
			return errors.New("a NULL or NaN key")
		}
	}
	o.started = true
	o.prev.key = append(o.prev.key[:0], key.key[:o.keyCols]...)
	o.prev.keyI = append(o.prev.keyI[:0], key.keyI[:o.keyCols]...)
	o.prev.kind = append(o.prev.kind[:0], key.kind[:o.keyCols]...)
	o.prev.keyS = append(o.prev.keyS[:0], key.keyS...)
	return nil
}

// insert adds an entry (with its left child above the leaves) to level.
func (t *bulkTree) insert(level int, rec []byte, child uint32) error {
	if ps := t.pending[level]; ps != nil {
		t.pending[level] = nil
		no, err := t.write(ps.page)
		if err != nil {
			return err
		}
		if err := t.insertAbove(level, ps.div, no); err != nil {
			return err
		}
	}
	p := t.levels[level]
	if p.fits(rec) {
		p.add(rec, child)
		return nil
	}
	if !p.leaf {
		p.right = child
	}
	t.pending[level] = &pendingSplit{page: p, div: append([]byte(nil), rec...)}
	t.levels[level] = t.page(p.leaf)
	return nil
}

func (t *bulkTree) insertAbove(level int, rec []byte, child uint32) error {
	if level+1 == len(t.levels) {
		t.levels = append(t.levels, t.page(false))
		t.pending = append(t.pending, nil)
	}
	return t.insert(level+1, rec, child)
}

// write sends a finished page out under the next page number.
func (t *bulkTree) write(p *btreePage) (uint32, error) {
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

// close finishes every level bottom-up and writes the top page to the
// root page; it returns the number of pages written after first.
func (t *bulkTree) close() error {
	if t.err != nil {
		return t.err
	}
	var carry uint32
	for level := 0; level < len(t.levels); level++ {
		cur := t.levels[level]
		if ps := t.pending[level]; ps != nil {
			// Nothing followed the split: the kept-back page's last entry
			// becomes the divider and the split-off entry opens cur.
			t.pending[level] = nil
			last, lastChild := ps.page.popLast()
			if cur.leaf {
				cur.add(ps.div, 0)
			} else {
				cur.add(ps.div, ps.page.right)
				ps.page.right = lastChild
			}
			no, err := t.write(ps.page)
			if err != nil {
				return err
			}
			if err := t.insertAbove(level, last, no); err != nil {
				return err
			}
		}
		if !cur.leaf {
			cur.right = carry
		}
		if level == len(t.levels)-1 {
			_, err := t.writeAt.WriteAt(cur.finish(), int64(t.root-1)*int64(t.pageSize))
			return err
		}
		no, err := t.write(cur)
		if err != nil {
			return err
		}
		carry = no
	}
	return nil
}

func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 && n < 9 {
		v >>= 7
		n++
	}
	return n
}

// putVarint writes v as SQLite's big-endian varint (payload sizes here
// stay far below the 9-byte form).
func putVarint(b []byte, v uint64) int {
	n := varintLen(v)
	if n > 8 {
		panic("sqlstore: varint too large")
	}
	for i := n - 1; i >= 0; i-- {
		c := byte(v & 0x7f)
		if i != n-1 {
			c |= 0x80
		}
		b[i] = c
		v >>= 7
	}
	return n
}

func readVarint(b []byte) (uint64, int) {
	var v uint64
	for i := range 8 {
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return v<<8 | uint64(b[8]), 9
}

// lockPage is the page holding the byte at offset 1 GiB, which SQLite
// keeps for its file locks and never uses for data
// (https://sqlite.org/fileformat.html, "The Lock-Byte Page").
func lockPage(pageSize int) uint32 { return uint32(1<<30/pageSize) + 1 }

// allocPage takes the next page number for a page about to be written
// to out, past the lock-byte page, which is written empty.
func allocPage(out io.Writer, next *uint32, pageSize int) (uint32, error) {
	if *next == lockPage(pageSize) {
		if _, err := out.Write(make([]byte, pageSize)); err != nil {
			return 0, err
		}
		*next++
	}
	no := *next
	*next++
	return no, nil
}

// pageAfter is the number allocPage gives the page after no.
func pageAfter(no uint32, pageSize int) uint32 {
	if no+1 == lockPage(pageSize) {
		return no + 2
	}
	return no + 1
}
