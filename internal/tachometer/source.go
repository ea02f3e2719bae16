package tachometer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// Encoding is how a capture file is stored, detected from its first bytes.
type Encoding string

const (
	EncodingParquet     Encoding = "parquet"      // starts with PAR1
	EncodingArrowFile   Encoding = "arrow-file"   // starts with ARROW1
	EncodingArrowStream Encoding = "arrow-stream" // anything else
)

// batchRows is how many Parquet rows one record batch holds; it bounds the
// decoded memory of a read independently of the file size.
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

// recordSource yields the record batches of one capture file. A record is
// valid until the next call to next.
type recordSource interface {
	schema() *arrow.Schema
	// project selects the columns to decode, by name; it must be called once
	// before next. Parquet decodes only those; Arrow IPC decodes whole
	// batches and the reader ignores the rest.
	project(names []string) error
	next() (arrow.Record, error) // io.EOF after the last record
	close() error
}

// openSource opens a capture file and reads its schema.
func openSource(path string) (src recordSource, enc Encoding, err error) {
	f, err := os.Open(path)
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

// parquetSource reads one row group at a time: text columns decode as
// dictionaries, and a batch crossing into the next row group would have to
// merge two different dictionaries, which the Arrow reader does not do.
type parquetSource struct {
	pf     *file.Reader
	fr     *pqarrow.FileReader
	rr     pqarrow.RecordReader
	fields *arrow.Schema
	cols   []int
	group  int // next row group to open
}

func openParquet(f *os.File) (*parquetSource, error) {
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, err
	}
	// Decoding text columns as dictionaries keeps each distinct name once
	// per batch instead of copying it into every row.
	props := pqarrow.ArrowReadProperties{BatchSize: batchRows}
	leaves := pf.MetaData().Schema
	for i := 0; i < leaves.NumColumns(); i++ {
		if leaves.Column(i).PhysicalType() == parquet.Types.ByteArray {
			props.SetReadDict(i, true)
		}
	}
	fr, err := pqarrow.NewFileReader(pf, props, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return nil, err
	}
	full, err := fr.Schema()
	if err != nil {
		pf.Close()
		return nil, err
	}
	return &parquetSource{pf: pf, fr: fr, fields: full}, nil
}

func (s *parquetSource) schema() *arrow.Schema { return s.fields }

func (s *parquetSource) project(names []string) error {
	cols := make([]int, 0, len(names))
	for _, name := range names {
		idx := s.pf.MetaData().Schema.ColumnIndexByName(name)
		if idx < 0 {
			return fmt.Errorf("column %q is not a flat Parquet column", name)
		}
		cols = append(cols, idx)
	}
	s.cols = cols
	return nil
}

func (s *parquetSource) next() (arrow.Record, error) {
	for {
		if s.rr == nil {
			if s.cols == nil || s.group >= s.pf.NumRowGroups() {
				return nil, io.EOF
			}
			rr, err := s.fr.GetRecordReader(context.Background(), s.cols, []int{s.group})
			if err != nil {
				return nil, err
			}
			s.rr, s.group = rr, s.group+1
		}
		rec, err := s.rr.Read()
		if err == io.EOF || err == nil && rec == nil {
			s.rr.Release()
			s.rr = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		return rec, nil
	}
}

func (s *parquetSource) close() error {
	if s.rr != nil {
		s.rr.Release()
	}
	return s.pf.Close() // also closes f
}

type arrowFileSource struct {
	f *os.File
	r *ipc.FileReader
	i int
}

func openArrowFile(f *os.File) (*arrowFileSource, error) {
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return nil, err
	}
	return &arrowFileSource{f: f, r: r}, nil
}

func (s *arrowFileSource) schema() *arrow.Schema { return s.r.Schema() }

func (s *arrowFileSource) project([]string) error { return nil }

func (s *arrowFileSource) next() (arrow.Record, error) {
	if s.i >= s.r.NumRecords() {
		return nil, io.EOF
	}
	rec, err := s.r.Record(s.i)
	s.i++
	return rec, err
}

func (s *arrowFileSource) close() error {
	s.r.Close()
	return s.f.Close()
}

type arrowStreamSource struct {
	f *os.File
	r *ipc.Reader
}

// endOfStream is the IPC end-of-stream marker every stream writer appends
// on close: a continuation token and a zero message length.
var endOfStream = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

func openArrowStream(f *os.File) (*arrowStreamSource, error) {
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

func (s *arrowStreamSource) project([]string) error { return nil }

func (s *arrowStreamSource) next() (arrow.Record, error) {
	if s.r.Next() {
		return s.r.Record(), nil
	}
	if err := s.r.Err(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

func (s *arrowStreamSource) close() error {
	s.r.Release()
	return s.f.Close()
}
