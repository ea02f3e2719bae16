package tachometer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
)

// parquetSource decodes Parquet column chunks straight into batches with
// the low-level column readers, into buffers reused from batch to batch.
// Arrow record reading builds new arrays for every batch (hundreds of bytes
// of garbage per row), and the collector's headroom over that churn, not
// the data, would set the read's memory. What is still allocated per page
// is the decompressed page itself.
//
// Text columns are coded rather than copied: values of a dictionary-encoded
// page point into the column chunk's dictionary, so a value's address
// identifies it (columnCoder.textValues).
type parquetSource struct {
	pf     *file.Reader
	src    io.ReaderAt
	fields *arrow.Schema
	cols   []parquetColumn
	coder  *identityCoder // nil when decoding timestamps alone
	group  int            // next row group to open
	left   int64          // rows not yet read from the open row group
	rows   int64          // rows decoded so far
	mem    memory.Allocator
	pool   *sync.Pool // scratch the column readers require for skipping

	defs     []int16
	int64s   []int64
	int32s   []int32
	float64s []float64
	float32s []float32
	bools    []bool
	bytes    []parquet.ByteArray
}

// A column's role says where its values go in a batch.
const (
	roleTime = iota
	roleValue
	roleCode // coded into identityCoder.cols[code]
)

type parquetColumn struct {
	name     string
	leaf     int
	role     int
	code     *columnCoder
	unsigned bool                // integer identity values print unsigned
	format   func(uint64) string // text of a numeric identity value
	optional bool
	rd       file.ColumnChunkReader
	pages    *columnPages
	// text decodes the open chunk of a text column instead of rd when
	// direct is set (textPages).
	text   *textPages
	direct bool
}

func openParquet(f Handle) (*parquetSource, error) {
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, err
	}
	// The Arrow types come from the Parquet schema alone. The Arrow schema
	// an Arrow writer also stores (ARROW:schema) is not decoded: it adds
	// nothing the checks need, and a damaged one can send the flatbuffer
	// decoder into unbounded recursion, which no recover catches.
	fields, err := parquetArrowSchema(pf.MetaData().Schema)
	if err != nil {
		pf.Close()
		return nil, err
	}
	mem := memory.DefaultAllocator
	pool := &sync.Pool{New: func() any { return memory.NewResizableBuffer(mem) }}
	return &parquetSource{pf: pf, src: f, fields: fields, mem: mem, pool: pool}, nil
}

func (s *parquetSource) schema() *arrow.Schema { return s.fields }

func (s *parquetSource) project(l layout) error {
	if err := s.add(colTimestamp, roleTime, nil); err != nil {
		return err
	}
	if l.timesOnly {
		return nil
	}
	upper32 := false
	if idx := s.fields.FieldIndices(colBucketUpper); l.upper && len(idx) > 0 {
		upper32 = s.fields.Field(idx[0]).Type.ID() == arrow.FLOAT32
	}
	s.coder = newIdentityCoder(l, upper32)
	s.coder.reserve(batchRows)
	if err := s.add(colValue, roleValue, nil); err != nil {
		return err
	}
	if err := s.add(colName, roleCode, s.coder.cols[0]); err != nil {
		return err
	}
	for k, name := range l.identity {
		if err := s.add(name, roleCode, s.coder.cols[1+k]); err != nil {
			return err
		}
	}
	if l.upper {
		return s.add(colBucketUpper, roleCode, s.coder.cols[s.coder.upper])
	}
	return nil
}

// add selects one column, checking that its Parquet storage is what its
// Arrow type (already checked by checkSchema) says.
func (s *parquetSource) add(name string, role int, code *columnCoder) error {
	sc := s.pf.MetaData().Schema
	leaf := sc.ColumnIndexByName(name)
	idx := s.fields.FieldIndices(name)
	if leaf < 0 || len(idx) == 0 || sc.Column(leaf).MaxRepetitionLevel() != 0 || sc.Column(leaf).MaxDefinitionLevel() > 1 {
		return fmt.Errorf("column %q is not a flat Parquet column", name)
	}
	c := parquetColumn{name: name, leaf: leaf, role: role, code: code, optional: sc.Column(leaf).MaxDefinitionLevel() == 1}
	var want parquet.Type
	switch t := s.fields.Field(idx[0]).Type; t.ID() {
	case arrow.INT64, arrow.TIMESTAMP:
		want, c.format = parquet.Types.Int64, signedText
	case arrow.UINT64:
		want, c.format = parquet.Types.Int64, unsignedText
	case arrow.INT8, arrow.INT16, arrow.INT32:
		want, c.format = parquet.Types.Int32, signedText
	case arrow.UINT8, arrow.UINT16, arrow.UINT32:
		want, c.format, c.unsigned = parquet.Types.Int32, unsignedText, true
	case arrow.FLOAT64:
		want, c.format = parquet.Types.Double, floatText
	case arrow.FLOAT32:
		want, c.format = parquet.Types.Float, floatText
	case arrow.BOOL:
		want, c.format = parquet.Types.Boolean, boolText
	default:
		want = parquet.Types.ByteArray
	}
	if got := sc.Column(leaf).PhysicalType(); got != want {
		return fmt.Errorf("column %q is stored as Parquet %s, not %s", name, got, want)
	}
	c.pages = &columnPages{mem: pageMemory{recycle: want != parquet.Types.ByteArray}}
	if want == parquet.Types.ByteArray && code != nil {
		c.text = &textPages{}
	}
	s.cols = append(s.cols, c)
	return nil
}

func (s *parquetSource) next(b *batch) error {
	b.grow(batchRows)
	b.n, b.nullTS = 0, -1
	for i := range s.cols {
		if c := s.cols[i].code; c != nil {
			c.one = oneUnset
		}
	}
	for b.n < batchRows {
		if s.left == 0 {
			if err := s.endGroup(); err != nil {
				return err
			}
			if s.group >= s.pf.NumRowGroups() {
				break
			}
			if err := s.openGroup(); err != nil {
				return err
			}
			continue
		}
		k := int(min(int64(batchRows-b.n), s.left))
		for i := range s.cols {
			if err := s.read(&s.cols[i], b, k); err != nil {
				return fmt.Errorf("row group %d: column %q: %w", s.group-1, s.cols[i].name, err)
			}
		}
		b.n += k
		s.left -= int64(k)
	}
	s.rows += int64(b.n)
	if b.n == 0 {
		if declared := s.pf.NumRows(); s.rows != declared {
			return fmt.Errorf("row groups hold %d rows, the footer declares %d", s.rows, declared)
		}
		return io.EOF
	}
	if s.coder != nil {
		s.coder.identify(b.n, b.ids)
		s.coder.snapshot(b)
	}
	return nil
}

// endGroup checks that the row group just read holds no more values than
// its row count said.
func (s *parquetSource) endGroup() error {
	for i := range s.cols {
		c := &s.cols[i]
		if c.direct {
			if more, err := c.text.more(); err != nil {
				return fmt.Errorf("row group %d: column %q: %w", s.group-1, c.name, err)
			} else if more {
				return fmt.Errorf("row group %d: column %q has more rows than the row group", s.group-1, c.name)
			}
			continue
		}
		if c.rd == nil {
			continue
		}
		if c.rd.HasNext() {
			return fmt.Errorf("row group %d: column %q has more rows than the row group", s.group-1, c.name)
		}
		if err := c.rd.Err(); err != nil {
			return fmt.Errorf("row group %d: column %q: %w", s.group-1, c.name, err)
		}
	}
	return nil
}

// openGroup starts reading the next row group's column chunks.
func (s *parquetSource) openGroup() error {
	fm := s.pf.MetaData()
	rg := fm.RowGroup(s.group)
	s.group++
	if s.left = rg.NumRows(); s.left < 0 {
		return fmt.Errorf("row group %d: negative row count %d", s.group-1, s.left)
	}
	for i := range s.cols {
		c := &s.cols[i]
		if c.text != nil {
			// Text values read by Arrow's column reader point into their
			// pages; textPages codes them before the next page is read.
			chunk, err := rg.ColumnChunk(c.leaf)
			if err != nil {
				return fmt.Errorf("row group %d: column %q: %w", s.group-1, c.name, err)
			}
			c.direct = directText(chunk)
			c.pages.mem.recycle = c.direct
		}
		if err := c.pages.open(s.src, fm, rg, c.leaf); err != nil {
			return fmt.Errorf("row group %d: column %q: %w", s.group-1, c.name, err)
		}
		if c.direct {
			c.rd = nil
			c.text.reset(c.pages, c.code, fm.Schema.Column(c.leaf).MaxDefinitionLevel())
			continue
		}
		c.rd = file.NewColumnReader(fm.Schema.Column(c.leaf), c.pages, s.mem, s.pool)
		if c.code != nil {
			// The addresses remembered belong to the last chunk's dictionary.
			c.code.memo.reset()
		}
	}
	return nil
}

// read decodes the next k rows of one column into rows [b.n, b.n+k).
func (s *parquetSource) read(c *parquetColumn, b *batch, k int) error {
	valid := validity{n: k}
	if c.optional {
		s.defs = grown(s.defs, k)
		valid.defs = s.defs
	}
	at := b.n
	if c.direct {
		code, one, err := c.text.read(c.code.rows[at : at+k])
		c.code.segment(code, one)
		return err
	}
	if c.code != nil {
		c.code.segment(0, false)
	}
	var total int64
	var n int
	var err error
	switch rd := c.rd.(type) {
	case *file.Int64ColumnChunkReader:
		dst := b.ts[at : at+k]
		if c.role != roleTime {
			s.int64s = grown(s.int64s, k)
			dst = s.int64s
		}
		total, n, err = rd.ReadBatch(int64(k), dst, valid.defs, nil)
	case *file.Float64ColumnChunkReader:
		dst := b.values[at : at+k]
		if c.role != roleValue {
			s.float64s = grown(s.float64s, k)
			dst = s.float64s
		}
		total, n, err = rd.ReadBatch(int64(k), dst, valid.defs, nil)
	case *file.Float32ColumnChunkReader:
		s.float32s = grown(s.float32s, k)
		total, n, err = rd.ReadBatch(int64(k), s.float32s, valid.defs, nil)
	case *file.Int32ColumnChunkReader:
		s.int32s = grown(s.int32s, k)
		total, n, err = rd.ReadBatch(int64(k), s.int32s, valid.defs, nil)
	case *file.BooleanColumnChunkReader:
		s.bools = grown(s.bools, k)
		total, n, err = rd.ReadBatch(int64(k), s.bools, valid.defs, nil)
	case *file.ByteArrayColumnChunkReader:
		s.bytes = grown(s.bytes, k)
		total, n, err = rd.ReadBatch(int64(k), s.bytes, valid.defs, nil)
		if err == nil && total == int64(k) {
			c.code.textValues(at, s.bytes[:n], valid, !c.pages.plain)
			return nil
		}
	default:
		return fmt.Errorf("unsupported Parquet type %s", c.rd.Type())
	}
	if err != nil {
		return err
	}
	if total != int64(k) {
		return errors.New("has fewer rows than its row group")
	}
	switch c.role {
	case roleTime:
		if i := spread(b.ts[at:at+k], n, valid, 0); i >= 0 && b.nullTS < 0 {
			b.nullTS = at + i
		}
	case roleValue:
		if c.rd.Type() == parquet.Types.Float {
			widen(b.values[at:at+k], s.float32s[:n])
		}
		spread(b.values[at:at+k], n, valid, math.NaN())
	default:
		s.code(c, at, n, valid)
	}
	return nil
}

// code codes a numeric identity column or the bucket bound column.
func (s *parquetSource) code(c *parquetColumn, at, n int, valid validity) {
	bits := func(j int) uint64 {
		switch c.rd.Type() {
		case parquet.Types.Int64:
			return uint64(s.int64s[j])
		case parquet.Types.Int32:
			if c.unsigned {
				return uint64(uint32(s.int32s[j]))
			}
			return uint64(int64(s.int32s[j]))
		case parquet.Types.Double:
			return math.Float64bits(s.float64s[j])
		case parquet.Types.Float:
			return math.Float64bits(float64(s.float32s[j]))
		}
		if s.bools[j] {
			return 1
		}
		return 0
	}
	j := 0
	for i := range valid.n {
		c.code.rows[at+i] = 0
		if valid.ok(i) {
			c.code.rows[at+i] = c.code.number(bits(j), c.format)
			j++
		}
	}
}

// spread moves the n values ReadBatch packed at the front of dst to the
// rows that hold them, working backwards so none is overwritten before it
// moves, and writes null to the other rows. It returns the first null row,
// or -1.
func spread[T any](dst []T, n int, valid validity, null T) int {
	if valid.defs == nil {
		return -1
	}
	first := -1
	j := n - 1
	for i := len(dst) - 1; i >= 0; i-- {
		if valid.defs[i] == 1 {
			dst[i] = dst[j]
			j--
		} else {
			dst[i], first = null, i
		}
	}
	return first
}

// widen converts float32 values (older captures) to float64, exactly.
func widen(dst []float64, src []float32) {
	for i, v := range src {
		dst[i] = float64(v)
	}
}

func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (s *parquetSource) close() error {
	return s.pf.Close() // also closes the file
}
