package tachometer

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/metadata"
)

// columnPages is the page reading of one projected column, kept from one
// column chunk to the next so that its buffers are reused: the stream
// buffer, the page reader's decompression buffer, and (for fixed-width
// values) the page buffers themselves.
type columnPages struct {
	file.PageReader
	stream chunkStream
	mem    pageMemory
	// plain is set once the chunk has a data page that is not
	// dictionary-encoded: a writer falls back to PLAIN pages when a chunk's
	// dictionary grows too large, and the values of such pages point into
	// the page, not the dictionary.
	plain bool
	err   error
	// maxDef and maxRep are the column's level bounds, for checkDataPage.
	maxDef, maxRep int16
}

// open starts reading column chunk leaf of row group rg, as
// RowGroupReader.GetColumnPageReader does.
func (p *columnPages) open(src io.ReaderAt, fm *metadata.FileMetaData, rg *metadata.RowGroupMetaData, leaf int) error {
	col, err := rg.ColumnChunk(leaf)
	if err != nil {
		return err
	}
	if col.CryptoMetadata() != nil {
		return errors.New("encrypted column chunks are not supported")
	}
	start, n := col.DataPageOffset(), col.TotalCompressedSize()
	if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
		start = col.DictionaryPageOffset()
	}
	if fm.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		// Old parquet-mr left the dictionary page header out of the chunk
		// size (PARQUET-816); the Arrow reader pads the same way.
		n += 100
	}
	if start < 0 || n < 0 {
		return fmt.Errorf("invalid column chunk offset %d or length %d", start, n)
	}
	p.maxDef, p.maxRep = fm.Schema.Column(leaf).MaxDefinitionLevel(), fm.Schema.Column(leaf).MaxRepetitionLevel()
	p.stream.reset(io.NewSectionReader(src, start, n))
	p.plain, p.err = false, nil
	p.mem.reset()
	if p.PageReader == nil {
		p.PageReader, err = file.NewPageReader(&p.stream, col.NumValues(), col.Compression(), &p.mem, nil)
		return err
	}
	p.PageReader.Reset(&p.stream, col.NumValues(), col.Compression(), nil)
	return p.PageReader.Err()
}

func (p *columnPages) Next() bool {
	ok := p.PageReader.Next()
	dict := false
	switch pg := p.Page().(type) {
	case *file.DictionaryPage:
		dict = true
		// The decoder sizes the dictionary by this count before reading
		// any value; every value takes at least one byte.
		if ok && int64(pg.NumValues()) > int64(len(pg.Data())) {
			p.err = fmt.Errorf("dictionary page of %d bytes claims %d values", len(pg.Data()), pg.NumValues())
			ok = false
		}
	case *file.DataPageV1, *file.DataPageV2:
		if ok {
			if err := checkDataPage(pg, p.maxDef, p.maxRep); err != nil {
				p.err = err
				ok = false
			}
		}
		enc := parquet.Encoding(pg.Encoding())
		p.plain = p.plain || enc != parquet.Encodings.RLEDict && enc != parquet.Encodings.PlainDict
	}
	p.mem.settle(dict)
	return ok
}

func (p *columnPages) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.PageReader.Err()
}

// pageMemory allocates the page buffers of one column. For fixed-width
// values it recycles them: the page reader frees a data page's buffer as
// soon as it has built the page, although the page is read until the next
// call to Next, which releases it before allocating again; and values are
// copied out of a page as it is read. So a buffer freed during one Next can
// serve the next one. A dictionary page is decoded lazily for the whole
// chunk, so its buffer is held until the next chunk opens. Text values
// point into their pages, so text columns do not recycle.
type pageMemory struct {
	recycle bool
	freed   [][]byte // freed during the current Next
	held    [][]byte // dictionary pages of the open chunk
	spare   [][]byte // free for the next allocations
}

// maxPageBytes bounds one page allocation: a page size read from a damaged
// header must not exhaust memory. Writers cut pages near 1 MiB.
const maxPageBytes = 256 << 20

// maxSpare is how many free buffers a column keeps: a dictionary page and
// a data page per chunk, and one more.
const maxSpare = 3

func (m *pageMemory) Allocate(size int) []byte {
	if size < 0 || size > maxPageBytes {
		// Reported as a corrupt file by the decoding goroutine (decodePanic).
		panic(fmt.Sprintf("page of %d bytes exceeds the %d-byte limit", size, maxPageBytes))
	}
	best := -1
	for i, b := range m.spare {
		if cap(b) >= size && (best < 0 || cap(b) < cap(m.spare[best])) {
			best = i
		}
	}
	if best < 0 {
		return make([]byte, size)
	}
	b := m.spare[best][:size]
	m.spare = append(m.spare[:best], m.spare[best+1:]...)
	return b // the page reader overwrites it whole

}

func (m *pageMemory) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	nb := m.Allocate(size)
	copy(nb, b)
	return nb
}

func (m *pageMemory) Free(b []byte) {
	if m.recycle {
		m.freed = append(m.freed, b)
	}
}

// settle ends a call to Next: what it freed is free for the next call, or
// held until the chunk ends if it was a dictionary page.
func (m *pageMemory) settle(dictionary bool) {
	for _, b := range m.freed {
		if dictionary {
			m.held = append(m.held, b)
		} else {
			m.keep(b)
		}
	}
	clear(m.freed)
	m.freed = m.freed[:0]
}

// reset starts a new chunk: the last chunk's dictionary is no longer read.
func (m *pageMemory) reset() {
	m.settle(false)
	for _, b := range m.held {
		m.keep(b)
	}
	clear(m.held)
	m.held = m.held[:0]
}

// keep adds b to the spares, dropping the smallest beyond maxSpare.
func (m *pageMemory) keep(b []byte) {
	m.spare = append(m.spare, b)
	if len(m.spare) > maxSpare {
		small := 0
		for i, s := range m.spare {
			if cap(s) < cap(m.spare[small]) {
				small = i
			}
		}
		m.spare = append(m.spare[:small], m.spare[small+1:]...)
	}
}

// chunkStream is the buffered reader a page reader reads one column chunk
// through; unlike the Arrow one it keeps its buffer from chunk to chunk.
type chunkStream struct {
	r      *io.SectionReader
	buf    []byte
	lo, hi int // buffered bytes are buf[lo:hi]
	err    error
}

const streamBuffer = 16 << 10

func (s *chunkStream) reset(r *io.SectionReader) {
	s.r, s.lo, s.hi, s.err = r, 0, 0, nil
	if s.buf == nil {
		s.buf = make([]byte, streamBuffer)
	}
}

// Peek returns the next n bytes without consuming them; fewer, with the
// error, at the end of the chunk. The page reader peeks page headers, at
// most 4 MiB.
func (s *chunkStream) Peek(n int) ([]byte, error) {
	if n < 0 {
		return nil, errors.New("negative peek")
	}
	if s.lo+n > len(s.buf) {
		if n > len(s.buf) {
			s.buf = append(make([]byte, 0, n), s.buf[s.lo:s.hi]...)[:n]
		} else {
			copy(s.buf, s.buf[s.lo:s.hi])
		}
		s.lo, s.hi = 0, s.hi-s.lo
	}
	for s.hi-s.lo < n && s.err == nil {
		m, err := s.r.Read(s.buf[s.hi:])
		s.hi += m
		s.err = err
	}
	if s.hi-s.lo < n {
		return s.buf[s.lo:s.hi], s.err
	}
	return s.buf[s.lo : s.lo+n], nil
}

func (s *chunkStream) Discard(n int) (int, error) {
	k := min(n, s.hi-s.lo)
	s.lo += k
	if k == n {
		return n, nil
	}
	// The buffer is empty: skip the rest in the chunk itself.
	pos, err := s.r.Seek(0, io.SeekCurrent)
	if err != nil {
		return k, err
	}
	if left := s.r.Size() - pos; int64(n-k) > left {
		_, err := s.r.Seek(0, io.SeekEnd)
		return k + int(left), errors.Join(io.EOF, err)
	}
	_, err = s.r.Seek(int64(n-k), io.SeekCurrent)
	return n, err
}

func (s *chunkStream) Read(p []byte) (int, error) {
	if s.hi > s.lo {
		n := copy(p, s.buf[s.lo:s.hi])
		s.lo += n
		return n, nil
	}
	if s.err != nil {
		return 0, s.err
	}
	return s.r.Read(p)
}
