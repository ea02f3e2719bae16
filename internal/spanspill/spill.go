// Package spanspill holds decoded server spans out of memory while a build
// groups them: a first pass adds each span to one of N buckets (by a key
// the caller hashes, such as the request that owns it), and a second pass
// reads one bucket back at a time, so the spans in memory at once are one
// bucket's rather than the run's.
//
// Each bucket is an unlinked temporary file with a small write buffer; a
// span is stored compactly (strings inline, varints), not as Go objects.
// Resources and scopes are shared by many spans and few in number: the
// store keeps them in memory and a span records which one it points to,
// so spans read back share the pointers they shared when added (the
// evidence codec writes one entry per distinct pointer, which keeps the
// encoded report byte for byte what the in-memory build wrote).
//
// The working set is the write buffers of the buckets written and not yet
// read (buckets × BufferBytes at most), the resources, scopes and source
// paths, and one bucket's spans while it is read. A store may share
// another's tables (Share), so that a pass regrouping the spans of one
// store into another copies each span's stored bytes rather than encoding
// it again. It imports only the model.
package spanspill

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/dsight/dsight/internal/model"
)

// BufferBytes is the write buffer of each bucket: large enough that a
// write is rarely smaller than a page, small enough that a thousand
// buckets cost a few MB.
const BufferBytes = 16 << 10

// Store keeps spans in buckets on disk until they are read back.
type Store struct {
	buckets   []bucket
	resources table[model.Resource]
	scopes    table[model.Scope]
	paths     map[string]uint64
	pathList  []string
	names     names
	buf       []byte
	closed    bool
	// of is the store whose tables this one's records index (Share); nil
	// for a store with tables of its own. shared marks a store another
	// shares: its tables may no longer grow.
	of     *Store
	shared bool
}

type bucket struct {
	f     *os.File
	w     *bufio.Writer // nil until the first Add, and again after a read
	spans int
	bytes int64
	// attrs counts the spans' own attributes, so a read gives them all
	// one slab.
	attrs int
}

// table numbers shared pointers 1.. in order of first use; nil is 0.
type table[T any] struct {
	ids  map[*T]uint64
	list []*T
}

func (t *table[T]) id(p *T) uint64 {
	if p == nil {
		return 0
	}
	i, ok := t.ids[p]
	if !ok {
		if t.ids == nil {
			t.ids = map[*T]uint64{}
		}
		t.list = append(t.list, p)
		i = uint64(len(t.list))
		t.ids[p] = i
	}
	return i
}

// New creates a store of n buckets whose files live in dir ("" is the
// system's temporary directory). The files are unlinked at once, so a
// build that dies leaves nothing behind.
func New(dir string, n int) (*Store, error) {
	if n < 1 {
		return nil, fmt.Errorf("span spill: %d buckets", n)
	}
	s := &Store{buckets: make([]bucket, n), paths: map[string]uint64{}}
	for k := range s.buckets {
		f, err := os.CreateTemp(dir, "dsight-spans-*")
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("span spill: %w", err)
		}
		if err := os.Remove(f.Name()); err != nil {
			f.Close()
			s.Close()
			return nil, fmt.Errorf("span spill: %w", err)
		}
		s.buckets[k] = bucket{f: f}
	}
	return s, nil
}

// Buckets is the number of buckets.
func (s *Store) Buckets() int { return len(s.buckets) }

// Len is the number of spans added to bucket b.
func (s *Store) Len(b int) int { return s.buckets[b].spans }

// Bytes is the number of bytes spilled to every bucket.
func (s *Store) Bytes() int64 {
	var n int64
	for _, b := range s.buckets {
		n += b.bytes
	}
	return n
}

// Add appends a copy of sp to bucket b.
func (s *Store) Add(b int, sp *model.Span) error {
	if s.closed {
		return errors.New("span spill: store is closed")
	}
	if b < 0 || b >= len(s.buckets) {
		return fmt.Errorf("span spill: bucket %d of %d", b, len(s.buckets))
	}
	if s.of != nil || s.shared {
		return errors.New("span spill: Add to a store whose tables are shared (AddRecord)")
	}
	path, ok := s.paths[sp.Ref.Path]
	if !ok {
		s.pathList = append(s.pathList, sp.Ref.Path)
		path = uint64(len(s.pathList) - 1)
		s.paths[sp.Ref.Path] = path
	}
	s.buf = s.names.appendSpan(s.buf[:0], sp, s.resources.id(sp.Resource), s.scopes.id(sp.Scope), path)
	return s.write(b, nil, s.buf, len(sp.Attrs))
}

// write appends the stored bytes rec of a span with attrs attributes to
// bucket b, after its tag's bytes (none in a store with its own tables).
func (s *Store) write(b int, tag, rec []byte, attrs int) error {
	bk := &s.buckets[b]
	if bk.w == nil {
		bk.w = bufio.NewWriterSize(bk.f, BufferBytes)
	}
	if _, err := bk.w.Write(tag); err != nil {
		return fmt.Errorf("span spill: %w", err)
	}
	if _, err := bk.w.Write(rec); err != nil {
		return fmt.Errorf("span spill: %w", err)
	}
	bk.spans++
	bk.bytes += int64(len(tag) + len(rec))
	bk.attrs += attrs
	return nil
}

// Share returns a store of n buckets of its own (files in dir, as New)
// that takes spans of s as
// the bytes s stored them in (AddRecord), and reads them back with s's
// tables: a pass that regroups the spans read back from s copies each
// one's bytes instead of encoding it again. s takes no Add after it.
func (s *Store) Share(dir string, n int) (*Store, error) {
	if s.of != nil {
		s = s.of
	}
	d, err := New(dir, n)
	if err != nil {
		return nil, err
	}
	d.of, s.shared = s, true
	return d, nil
}

// AddRecord appends to bucket b span k of the read buf holds (ReadInto
// of s, or of a store sharing s's tables), as it was stored, with tag, a
// number the caller reads back with it (ReadBuffer.Tag): what it knows of
// the span, which a later pass then need not work out again. sp is the
// span as read back, whose attributes are counted.
func (s *Store) AddRecord(b int, buf *ReadBuffer, k int, sp *model.Span, tag uint64) error {
	if s.closed {
		return errors.New("span spill: store is closed")
	}
	if b < 0 || b >= len(s.buckets) {
		return fmt.Errorf("span spill: bucket %d of %d", b, len(s.buckets))
	}
	if s.of == nil || buf.tables != s.of {
		return errors.New("span spill: AddRecord of a span read from a store whose tables this one does not share")
	}
	var t [binary.MaxVarintLen64]byte
	return s.write(b, binary.AppendUvarint(t[:0], tag), buf.recs[k], len(sp.Attrs))
}

// Read returns the spans of bucket b in the order they were added. Their
// Resource and Scope are the pointers the added spans carried. A bucket
// may be read more than once.
func (s *Store) Read(b int) ([]model.Span, error) {
	return s.ReadInto(b, &ReadBuffer{})
}

// ReadBuffer holds what a bucket read back decodes into: its bytes, its
// spans and their attributes. A pass that is done with one bucket's spans
// before it reads the next can give each read the buffer of a bucket it
// finished, so the passes allocate per bucket size, not per bucket read.
type ReadBuffer struct {
	raw   []byte
	spans []model.Span
	slab  []model.Attr
	// recs[k] is the stored bytes of spans[k] (a slice of raw), and
	// tables the store whose tables they index, for AddRecord; tags[k]
	// is the tag spans[k] was added with (a store sharing another's).
	recs   [][]byte
	tables *Store
	tags   []uint64
	tagged bool
}

// Tag is the tag span k of the last read was added with (AddRecord).
func (b *ReadBuffer) Tag(k int) uint64 { return b.tags[k] }

// Move makes span to's stored bytes span from's, for a caller that
// compacts the spans a read gave (spans[to] = spans[from]) and adds them
// to a store by their bytes (AddRecord).
func (b *ReadBuffer) Move(to, from int) {
	b.recs[to] = b.recs[from]
	if b.tagged {
		b.tags[to] = b.tags[from]
	}
}

// ReadInto is Read into buf: the spans, and every string and attribute
// they hold, are valid until buf is given to another read. Nothing of
// them may be kept past that (clone what must outlive it).
func (s *Store) ReadInto(b int, buf *ReadBuffer) ([]model.Span, error) {
	if s.closed {
		return nil, errors.New("span spill: store is closed")
	}
	bk := &s.buckets[b]
	if bk.w != nil {
		if err := bk.w.Flush(); err != nil {
			return nil, fmt.Errorf("span spill: %w", err)
		}
		// A bucket is read once it is written: its buffer goes, and an Add
		// after the read makes a new one. Thousands of buckets' buffers
		// would otherwise stay through every pass of the join.
		bk.w = nil
	}
	reads.Add(1)
	raw := grow(&buf.raw, int(bk.bytes))
	if _, err := bk.f.ReadAt(raw, 0); err != nil && !(errors.Is(err, io.EOF) && len(raw) == 0) {
		return nil, fmt.Errorf("span spill: bucket %d: %w", b, err)
	}
	spans := grow(&buf.spans, bk.spans)
	recs := grow(&buf.recs, bk.spans)
	t, tags := s, []uint64(nil)
	if buf.tagged = s.of != nil; buf.tagged {
		t, tags = s.of, grow(&buf.tags, bk.spans)
	}
	buf.tables = t
	// The decoded strings are views of raw: one buffer for the bytes and
	// the strings, not a copy for each. They stay valid until buf is read
	// into again, which a caller recycling buffers must wait for.
	d := decoder{b: raw, whole: unsafe.String(unsafe.SliceData(raw), len(raw)), resources: t.resources.list, scopes: t.scopes.list, paths: t.pathList, names: t.names.list,
		slab: grow(&buf.slab, bk.attrs)[:0]}
	for k := range spans {
		if tags != nil {
			tags[k] = d.uint()
		}
		at := len(raw) - len(d.b)
		d.span(&spans[k])
		if d.err != nil {
			return nil, fmt.Errorf("span spill: bucket %d span %d: %w", b, k, d.err)
		}
		recs[k] = raw[at : len(raw)-len(d.b) : len(raw)-len(d.b)]
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("span spill: bucket %d: %d bytes after its last span", b, len(d.b))
	}
	return spans, nil
}

// grow makes *p hold n items (reallocated only when it is too small) and
// returns them; their old contents are overwritten by the decode.
func grow[T any](p *[]T, n int) []T {
	if cap(*p) < n {
		*p = make([]T, n)
	}
	*p = (*p)[:n]
	return *p
}

// reads counts the buckets read back by every store: what a build's
// passes over the spill cost, which the importer's tests bound.
var reads atomic.Int64

// Reads is the number of bucket reads by every store of the process so far.
func Reads() int64 { return reads.Load() }

// Close releases the files; it is safe to call more than once.
func (s *Store) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var first error
	for _, b := range s.buckets {
		if b.f != nil {
			if err := b.f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
