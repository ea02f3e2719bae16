package tachometer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"

	"github.com/dsight/dsight/internal/lineread"
)

// Encoding is how a capture file is stored, detected from its first bytes.
type Encoding string

const (
	EncodingParquet     Encoding = "parquet"      // starts with PAR1
	EncodingArrowFile   Encoding = "arrow-file"   // starts with ARROW1
	EncodingArrowStream Encoding = "arrow-stream" // anything else
)

// batchRows is how many rows one batch holds; it bounds the decoded memory
// of a read independently of the file size.
const batchRows = 32768

// Sniff detects a capture file's encoding from its first bytes, not its
// suffix: some historical captures use .parquet for Arrow IPC.
func Sniff(head []byte) Encoding {
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return EncodingParquet
	case bytes.HasPrefix(head, []byte("ARROW1")):
		return EncodingArrowFile
	}
	return EncodingArrowStream
}

// streamStart reports whether head can begin an Arrow IPC stream: the
// continuation marker, or (the pre-1.0 layout) the length of a first
// message that fits in the file.
func streamStart(f Handle, head []byte) bool {
	if len(head) < 4 {
		return false
	}
	if bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}) {
		return true
	}
	n := int32(uint32(head[0]) | uint32(head[1])<<8 | uint32(head[2])<<16 | uint32(head[3])<<24)
	st, err := f.Stat()
	return err == nil && n > 0 && int64(n) <= st.Size()
}

// batchSource decodes the batches of one capture file.
type batchSource interface {
	schema() *arrow.Schema
	// project selects what next decodes, once before the first call:
	// the columns of l, or timestamp_ns alone when l.timesOnly.
	project(l layout) error
	// next decodes the next rows into b, which it may fill across
	// record batches or row groups; io.EOF after the last row.
	next(b *batch) error
	close() error
}

// Handle is an open capture file: the decoders read it at offsets (Parquet,
// Arrow file), from its start (Arrow stream) and check its size. *os.File
// is one.
type Handle interface {
	io.ReadSeeker
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// OpenFunc opens a capture file by path. It is called twice per file, once
// by Inspect and once by Read; each call needs its own read position.
type OpenFunc func(path string) (Handle, error)

// openOS is the default OpenFunc.
func openOS(path string) (Handle, error) {
	f, err := lineread.Open(path)
	if err != nil {
		return nil, err // not a nil *os.File in a non-nil Handle
	}
	return f, nil
}

// openSource opens a capture file with os.Open and reads its schema.
func openSource(path string) (batchSource, Encoding, error) { return openSourceWith(nil, path) }

// openSourceWith opens a capture file with open (nil: os.Open) and reads
// its schema.
func openSourceWith(open OpenFunc, path string) (src batchSource, enc Encoding, err error) {
	if open == nil {
		open = openOS
	}
	f, err := open(path)
	if err != nil {
		return nil, "", err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	head := make([]byte, 6)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, "", err
	}
	if n == 0 {
		return nil, "", errors.New("empty file")
	}
	enc = Sniff(head[:n])
	if enc == EncodingArrowStream && !streamStart(f, head[:n]) {
		// Read as an Arrow stream it would say "truncated Arrow IPC stream".
		return nil, "", errors.New(notACapture(head[:n]))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, "", err
	}
	switch enc {
	case EncodingParquet:
		src, err = openParquet(f)
	case EncodingArrowFile:
		src, err = openArrowFile(f)
	default:
		src, err = openArrowStream(f)
	}
	return src, enc, err
}

// recordFiller turns Arrow record batches into batches.
type recordFiller struct {
	l     layout
	coder *identityCoder
	upper []float64
}

func (f *recordFiller) project(s *arrow.Schema, l layout) error {
	f.l = l
	if !l.timesOnly {
		upper32 := false
		if idx := s.FieldIndices(colBucketUpper); len(idx) > 0 {
			upper32 = s.Field(idx[0]).Type.ID() == arrow.FLOAT32
		}
		f.coder = newIdentityCoder(l, upper32)
	}
	return nil
}

func (f *recordFiller) fill(rec arrow.Record, b *batch) error {
	col := func(name string) arrow.Array {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) == 0 {
			return nil
		}
		return rec.Column(idx[0])
	}
	n := int(rec.NumRows())
	b.grow(n)
	b.n = n
	tsArr := col(colTimestamp)
	if tsArr == nil {
		return errors.New("record batch lacks a required column")
	}
	b.nullTS = copyTimes(b.ts, tsArr)
	if f.l.timesOnly {
		return nil
	}
	valArr, nameArr := col(colValue), col(colName)
	if valArr == nil || nameArr == nil {
		return errors.New("record batch lacks a required column")
	}
	copyFloats(b.values, valArr)
	f.coder.reserve(n)
	texts := []arrow.Array{nameArr}
	for _, name := range f.l.identity {
		a := col(name)
		if a == nil {
			return fmt.Errorf("record batch lacks column %q", name)
		}
		texts = append(texts, a)
	}
	for c, a := range texts {
		codes, text := f.coder.cols[c], newTextColumn(a)
		for i := range n {
			codes.rows[i] = 0
			if s, ok := text(i); ok {
				codes.rows[i] = codes.textString(s)
			}
		}
	}
	if f.coder.upper >= 0 {
		a := col(colBucketUpper)
		if a == nil {
			return fmt.Errorf("record batch lacks column %q", colBucketUpper)
		}
		f.upper = slices.Grow(f.upper[:0], n)[:n]
		copyFloats(f.upper, a)
		codes := f.coder.cols[f.coder.upper]
		for i := range n {
			codes.rows[i] = 0
			if a.IsValid(i) {
				codes.rows[i] = codes.number(math.Float64bits(f.upper[i]), nil)
			}
		}
	}
	f.coder.identify(n, b.ids)
	f.coder.snapshot(b)
	return nil
}

type arrowFileSource struct {
	recordFiller
	f Handle
	r *ipc.FileReader
	i int
}

func openArrowFile(f Handle) (*arrowFileSource, error) {
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return nil, err
	}
	return &arrowFileSource{f: f, r: r}, nil
}

func (s *arrowFileSource) schema() *arrow.Schema { return s.r.Schema() }

func (s *arrowFileSource) project(l layout) error { return s.recordFiller.project(s.schema(), l) }

func (s *arrowFileSource) next(b *batch) error {
	if s.i >= s.r.NumRecords() {
		return io.EOF
	}
	rec, err := s.r.Record(s.i)
	s.i++
	if err != nil {
		return err
	}
	return s.fill(rec, b)
}

func (s *arrowFileSource) close() error {
	s.r.Close()
	return s.f.Close()
}

type arrowStreamSource struct {
	recordFiller
	f Handle
	r *ipc.Reader
}

// endOfStream is the IPC end-of-stream marker every stream writer appends
// on close: a continuation token and a zero message length.
var endOfStream = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

func openArrowStream(f Handle) (*arrowStreamSource, error) {
	// A stream cut at a message boundary decodes cleanly, so the marker is
	// the only evidence that nothing is missing.
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	tail := make([]byte, len(endOfStream))
	if info.Size() < int64(len(tail)) {
		return nil, errors.New("truncated Arrow IPC stream")
	}
	if _, err := f.ReadAt(tail, info.Size()-int64(len(tail))); err != nil {
		return nil, err
	}
	if !bytes.Equal(tail, endOfStream) {
		return nil, errors.New("no end-of-stream marker in the Arrow IPC stream (truncated or still being written)")
	}
	r, err := ipc.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, err
	}
	return &arrowStreamSource{f: f, r: r}, nil
}

func (s *arrowStreamSource) schema() *arrow.Schema { return s.r.Schema() }

func (s *arrowStreamSource) project(l layout) error { return s.recordFiller.project(s.schema(), l) }

func (s *arrowStreamSource) next(b *batch) error {
	if s.r.Next() {
		return s.fill(s.r.Record(), b)
	}
	if err := s.r.Err(); err != nil {
		return err
	}
	return io.EOF
}

func (s *arrowStreamSource) close() error {
	s.r.Release()
	return s.f.Close()
}
