package nsys

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// A read-only reader of the SQLite file format (https://sqlite.org/fileformat2.html),
// just enough to scan one rowid table's b-tree in rowid order: the header,
// table interior and leaf pages, overflow chains, varints and records.
// NVTX_EVENTS holds millions of rows; through database/sql and the driver
// each costs ~1.5 µs (most of it per-column calls, locks and conversions),
// read here it costs a small fraction of that. The driver still answers
// every other question (the schema, the small tables) and reads the table
// itself whenever this reader declines a file or a value.
//
// It trusts nothing in the file: every page number is checked against the
// file's page count, every offset against its page, a page met twice (a
// cycle in child or overflow pointers) and a tree deeper than SQLite's own
// limit are errors, so a hostile file ends the scan instead of hanging it.

// errSQLiteFile is the cause of every refusal; the caller then reads the
// table through the driver, which reports the problem in its own words.
var errSQLiteFile = errors.New("sqlite file")

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errSQLiteFile, fmt.Sprintf(format, a...))
}

// maxDepth is SQLite's BTCURSOR_MAX_DEPTH: no valid tree is deeper.
const maxDepth = 20

type sqliteFile struct {
	f        io.ReaderAt
	size     int64
	pageSize int
	usable   int    // page size minus the reserved bytes at each page's end
	pages    uint32 // pages in the database
	seen     []uint64
	levels   [maxDepth + 1][]byte // one page buffer per tree level
	overflow []byte               // an overflow page
	payload  []byte               // a record spilled over overflow pages, reassembled
	count    int64                // rows seen by a walk without a row function

	ahead                  []byte // pages read ahead: aheadPages from aheadFirst
	aheadFirst, aheadPages uint32
	last                   uint32 // the page read last
}

// openSQLiteFile checks the header of f (size bytes long) and declines what
// this reader does not handle: another text encoding, WAL mode (the pages
// may live in the -wal file), unusual payload fractions.
func openSQLiteFile(f io.ReaderAt, size int64) (*sqliteFile, error) {
	var h [100]byte
	if size < int64(len(h)) {
		return nil, corrupt("shorter than its header")
	}
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return nil, corrupt("header: %v", err)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return nil, corrupt("no SQLite header")
	}
	ps := int(binary.BigEndian.Uint16(h[16:]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return nil, corrupt("page size %d", ps)
	}
	if h[18] != 1 || h[19] != 1 {
		return nil, corrupt("file format versions %d/%d (WAL or newer)", h[18], h[19])
	}
	usable := ps - int(h[20])
	if usable < 480 {
		return nil, corrupt("usable page size %d", usable)
	}
	if h[21] != 64 || h[22] != 32 || h[23] != 32 {
		return nil, corrupt("payload fractions")
	}
	if enc := binary.BigEndian.Uint32(h[56:]); enc != 1 {
		return nil, corrupt("text encoding %d is not UTF-8", enc)
	}
	n := size / int64(ps)
	// The header's page count is valid when its version-valid-for number
	// matches the change counter; SQLite then uses it.
	if hs := binary.BigEndian.Uint32(h[28:]); hs != 0 && binary.BigEndian.Uint32(h[92:]) == binary.BigEndian.Uint32(h[24:]) && int64(hs) < n {
		n = int64(hs)
	}
	if n > math.MaxUint32 {
		n = math.MaxUint32
	}
	return &sqliteFile{f: f, size: size, pageSize: ps, usable: usable, pages: uint32(n), seen: make([]uint64, (n+64)/64)}, nil
}

// page reads page number pg into buf (grown when short), marking it met.
func (s *sqliteFile) page(pg uint32, buf []byte) ([]byte, error) {
	if pg == 0 || pg > s.pages {
		return nil, corrupt("page %d outside the file's %d pages", pg, s.pages)
	}
	if s.seen[pg/64]&(1<<(pg%64)) != 0 {
		return nil, corrupt("page %d is reached twice", pg)
	}
	s.seen[pg/64] |= 1 << (pg % 64)
	if cap(buf) < s.pageSize {
		buf = make([]byte, s.pageSize)
	}
	buf = buf[:s.pageSize]
	if err := s.readPage(pg, buf); err != nil {
		return nil, corrupt("page %d: %v", pg, err)
	}
	return buf, nil
}

// maxAhead bounds the pages read at once.
const maxAhead = 64

// readPage copies page pg into buf. A table written in rowid order has its
// leaf pages mostly in file order, so reads that keep following each other
// read ahead, doubling up to maxAhead pages: one system call per page was
// a fifth of the scan.
func (s *sqliteFile) readPage(pg uint32, buf []byte) error {
	ps := s.pageSize
	if pg >= s.aheadFirst && pg < s.aheadFirst+s.aheadPages {
		off := int(pg-s.aheadFirst) * ps
		copy(buf, s.ahead[off:off+ps])
		s.last = pg
		return nil
	}
	n := uint32(1)
	if pg == s.last+1 || pg == s.aheadFirst+s.aheadPages {
		n = min(max(2*s.aheadPages, 2), maxAhead, s.pages-pg+1)
	}
	s.last = pg
	if n == 1 { // the window stays: the leaves may go on after this page
		_, err := s.f.ReadAt(buf, int64(pg-1)*int64(ps))
		return err
	}
	if len(s.ahead) < int(n)*ps {
		s.ahead = make([]byte, maxAhead*ps)
	}
	s.aheadPages = 0
	if _, err := s.f.ReadAt(s.ahead[:int(n)*ps], int64(pg-1)*int64(ps)); err != nil {
		return err
	}
	s.aheadFirst, s.aheadPages = pg, n
	copy(buf, s.ahead[:ps])
	return nil
}

// scanTable calls row for every row of the rowid table rooted at root, in
// rowid order, with the record's bytes (valid until row returns). An error
// from row ends the scan and is returned.
func (s *sqliteFile) scanTable(root uint32, row func(rowid int64, rec []byte) error) error {
	clear(s.seen)
	return s.walk(root, 0, row)
}

// rowidSpan bounds the row count of the table rooted at root by its
// smallest and largest rowid (rowids are distinct), reading one path down
// each side of the tree; ok is false when the tree gives no usable bound.
func (s *sqliteFile) rowidSpan(root uint32) (n int64, ok bool) {
	var buf []byte
	edge := func(last bool) (int64, bool) {
		pg := root
		for range maxDepth {
			if pg == 0 || pg > s.pages {
				return 0, false
			}
			if cap(buf) < s.pageSize {
				buf = make([]byte, s.pageSize)
			}
			buf = buf[:s.pageSize]
			if s.readPage(pg, buf) != nil {
				return 0, false
			}
			hdr := 0
			if pg == 1 {
				hdr = 100
			}
			b := buf[:s.usable]
			cells := int(binary.BigEndian.Uint16(b[hdr+3:]))
			switch b[hdr] {
			case 0x05:
				if last {
					pg = binary.BigEndian.Uint32(b[hdr+8:])
					continue
				}
				if cells == 0 || hdr+14 > len(b) {
					return 0, false
				}
				off := int(binary.BigEndian.Uint16(b[hdr+12:]))
				if off+4 > len(b) {
					return 0, false
				}
				pg = binary.BigEndian.Uint32(b[off:])
			case 0x0D:
				if cells == 0 {
					return 0, false
				}
				at := hdr + 8
				if last {
					at += 2 * (cells - 1)
				}
				if at+2 > len(b) {
					return 0, false
				}
				off := int(binary.BigEndian.Uint16(b[at:]))
				if off >= len(b) {
					return 0, false
				}
				_, k := varint(b[off:])
				if k == 0 {
					return 0, false
				}
				rowid, j := varint(b[off+k:])
				return int64(rowid), j > 0
			default:
				return 0, false
			}
		}
		return 0, false
	}
	first, ok1 := edge(false)
	last, ok2 := edge(true)
	if !ok1 || !ok2 || last < first || last-first < 0 || last-first >= math.MaxInt32 {
		return 0, false
	}
	return last - first + 1, true
}

// countRows counts the rows of the table rooted at root from its leaf
// pages' cell counts, decoding no cell.
func (s *sqliteFile) countRows(root uint32) (int64, error) {
	clear(s.seen)
	s.count = 0
	err := s.walk(root, 0, nil)
	return s.count, err
}

func (s *sqliteFile) walk(pg uint32, depth int, row func(int64, []byte) error) error {
	if depth > maxDepth {
		return corrupt("tree deeper than %d levels", maxDepth)
	}
	b, err := s.page(pg, s.levels[depth])
	if err != nil {
		return err
	}
	s.levels[depth] = b
	hdr := 0
	if pg == 1 {
		hdr = 100
	}
	b = b[:s.usable]
	if len(b) < hdr+12 {
		return corrupt("page %d too small", pg)
	}
	kind := b[hdr]
	cells := int(binary.BigEndian.Uint16(b[hdr+3:]))
	ptrs := hdr + 8
	switch kind {
	case 0x0D: // table leaf
	case 0x05: // table interior
		ptrs = hdr + 12
	default:
		return corrupt("page %d has type %d, not a table b-tree page", pg, kind)
	}
	if ptrs+2*cells > len(b) {
		return corrupt("page %d: %d cells do not fit", pg, cells)
	}
	if row == nil && kind == 0x0D {
		s.count += int64(cells)
		return nil
	}
	for k := range cells {
		off := int(binary.BigEndian.Uint16(b[ptrs+2*k:]))
		if off < ptrs+2*cells || off >= len(b) {
			return corrupt("page %d: cell %d at offset %d", pg, k, off)
		}
		c := b[off:]
		if kind == 0x05 {
			if len(c) < 5 {
				return corrupt("page %d: cell %d truncated", pg, k)
			}
			if err := s.walk(binary.BigEndian.Uint32(c), depth+1, row); err != nil {
				return err
			}
			continue
		}
		size, n := varint(c)
		if n == 0 {
			return corrupt("page %d: cell %d truncated", pg, k)
		}
		c = c[n:]
		rowid, n := varint(c)
		if n == 0 {
			return corrupt("page %d: cell %d truncated", pg, k)
		}
		c = c[n:]
		rec, err := s.record(c, size)
		if err != nil {
			return fmt.Errorf("page %d cell %d: %w", pg, k, err)
		}
		if err := row(int64(rowid), rec); err != nil {
			return err
		}
	}
	if kind == 0x05 {
		return s.walk(binary.BigEndian.Uint32(b[hdr+8:]), depth+1, row)
	}
	return nil
}

// record returns a table leaf cell's payload of size bytes starting at c,
// following its overflow chain when it does not fit on the page.
func (s *sqliteFile) record(c []byte, size uint64) ([]byte, error) {
	u := uint64(s.usable)
	x := u - 35
	if size <= x {
		if uint64(len(c)) < size {
			return nil, corrupt("payload of %d bytes leaves its page", size)
		}
		return c[:size], nil
	}
	if size > uint64(s.pages)*u {
		return nil, corrupt("payload of %d bytes is larger than the file", size)
	}
	m := (u-12)*32/255 - 23
	local := m + (size-m)%(u-4)
	if local > x {
		local = m
	}
	if uint64(len(c)) < local+4 {
		return nil, corrupt("payload of %d bytes leaves its page", size)
	}
	s.payload = append(s.payload[:0], c[:local]...)
	next := binary.BigEndian.Uint32(c[local:])
	for uint64(len(s.payload)) < size {
		b, err := s.page(next, s.overflow)
		if err != nil {
			return nil, err
		}
		s.overflow = b
		next = binary.BigEndian.Uint32(b)
		take := min(size-uint64(len(s.payload)), u-4)
		s.payload = append(s.payload, b[4:4+take]...)
	}
	return s.payload, nil
}

// varint decodes a SQLite varint (1–9 bytes, big-endian, 7 bits a byte but
// all 8 in the ninth), returning 0 bytes read when b ends first.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := range 8 {
		if i >= len(b) {
			return 0, 0
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

// Value kinds of a record column.
const (
	valNull = iota
	valInt
	valReal
	valText
	valBlob
)

// value is one decoded column; b aliases the record.
type value struct {
	kind int
	i    int64
	b    []byte
}

// serialSize is the body size of a serial type, -1 for the reserved ones.
func serialSize(t uint64) int64 {
	switch {
	case t <= 4:
		return int64(t)
	case t == 5:
		return 6
	case t == 6 || t == 7:
		return 8
	case t == 8 || t == 9:
		return 0
	case t == 10 || t == 11:
		return -1
	case t > math.MaxInt32:
		return -1
	default:
		return int64(t-12) / 2
	}
}

func decode(t uint64, b []byte) value {
	switch t {
	case 0:
		return value{}
	case 7:
		return value{kind: valReal, i: int64(binary.BigEndian.Uint64(b))}
	case 8:
		return value{kind: valInt}
	case 9:
		return value{kind: valInt, i: 1}
	}
	if t <= 6 {
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		if sh := 64 - 8*uint(len(b)); sh > 0 {
			v = v << sh >> sh // sign-extend
		}
		return value{kind: valInt, i: v}
	}
	if t%2 == 0 {
		return value{kind: valBlob, b: b}
	}
	return value{kind: valText, b: b}
}

// fileSize is the size of an open file.
func fileSize(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
