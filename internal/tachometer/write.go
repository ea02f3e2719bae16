package tachometer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
)

// CaptureSeries is what every row of one captured series shares: the
// scraper endpoint, the metric name with its inline labels, the extra
// metadata columns and, for a histogram bucket, its bounds.
type CaptureSeries struct {
	Endpoint string
	Name     string
	// Extra holds one value per CaptureOptions.Extra column, in order; the
	// Tachometer writer stores "" for a key the endpoint does not set.
	Extra []string
	// Bucket marks a histogram bucket series; Lower and Upper are its
	// bounds. An infinite Upper is written as null, as Tachometer does.
	Bucket       bool
	Lower, Upper float64
}

// CaptureSample is one captured row.
type CaptureSample struct {
	Series int32 // index into the writer's series
	TimeNS int64 // timestamp_ns, UTC epoch nanoseconds
	Value  float64
	// Sum and Count are the histogram totals Tachometer copies onto every
	// bucket row; they are ignored for scalar series.
	Sum, Count float64
}

// CaptureOptions shape a capture file.
type CaptureOptions struct {
	// Extra names the metadata columns written after timestamp_ns, in
	// order (Tachometer sorts them by name).
	Extra []string
	// StartNS is when the capture writer started: time_since_start is
	// (TimeNS - StartNS) seconds.
	StartNS int64
	// BatchRows is the number of rows per record batch, which is also the
	// Parquet row-group size; 0 means 200,000, the compactor's row group.
	// Read decodes each row group on its own, so any size reads back.
	BatchRows int
	// NoTimestamp leaves out timestamp_ns, as older Tachometer versions
	// did: such a file cannot be aligned and is left unread.
	NoTimestamp bool
}

const defaultCaptureBatch = 200_000

// CaptureWriter writes Tachometer capture rows in the writer's column order
// (scraper_endpoint, metric_name, metric_value, histogram_bucket_lower,
// histogram_bucket_upper, histogram_sum, histogram_count, time_since_start,
// timestamp_ns, extra columns), as Parquet (ZSTD) or as an Arrow IPC file or
// stream. Rows are buffered one batch at a time, so memory does not grow
// with the number of rows; the caller supplies rows in the order the file
// should hold them (final.parquet is sorted by metric name, then time).
//
// Text columns are Utf8 in Arrow IPC output. For Parquet they are handed to
// the encoder as dictionaries restricted to each batch's values, which the
// Parquet writer stores directly as its dictionary pages; the file holds
// plain UTF-8 byte-array columns either way.
type CaptureWriter struct {
	enc       Encoding
	opts      CaptureOptions
	schema    *arrow.Schema
	mem       memory.Allocator
	series    []CaptureSeries
	buckets   bool
	textCols  int       // endpoint, name, extras
	valueIDs  [][]int32 // [text column][series] → index into values[column]
	values    [][]string
	parquet   *parquetRecordWriter
	ipc       ipcWriter
	batch     []CaptureSample
	localCode [][]int32 // per text column, scratch: value id → code in the batch, -1 when absent
	// Column buffers reused across batches: an encoded batch no longer
	// refers to them.
	valBuf, sinceBuf []float64
	tsBuf            []int64
	idxBuf           [][]int32   // per text column
	nulls            arrow.Array // all-null float64 column of the last batch length
	rows             int64
	closed           bool
	err              error
}

type ipcWriter interface {
	Write(arrow.Record) error
	Close() error
}

// fixedColumns are the columns every capture has, before the extras.
var fixedColumns = []string{
	colEndpoint, colName, colValue, "histogram_bucket_lower", colBucketUpper,
	"histogram_sum", "histogram_count", colSinceStart, colTimestamp,
}

// NewCaptureWriter starts a capture file on w in the given encoding for the
// given series. The writer does not close w.
func NewCaptureWriter(w io.Writer, enc Encoding, series []CaptureSeries, opts CaptureOptions) (*CaptureWriter, error) {
	if opts.BatchRows <= 0 {
		opts.BatchRows = defaultCaptureBatch
	}
	for i, name := range opts.Extra {
		if name == "" || slices.Contains(fixedColumns, name) || slices.Contains(opts.Extra[:i], name) || name == "metric_name_clean" {
			return nil, fmt.Errorf("capture writer: extra column %q is empty, repeated or reserved", name)
		}
	}
	c := &CaptureWriter{
		enc: enc, opts: opts, mem: memory.DefaultAllocator,
		series: series, textCols: 2 + len(opts.Extra),
		batch: make([]CaptureSample, 0, opts.BatchRows),
	}
	if err := c.indexText(); err != nil {
		return nil, err
	}
	c.schema = c.buildSchema()
	var err error
	switch enc {
	case EncodingParquet:
		c.parquet, err = newParquetRecordWriter(c.schema, nopCloser{w}, captureParquetProps(opts))
	case EncodingArrowFile:
		ws, ok := w.(io.WriteSeeker)
		if !ok {
			ws = &tellWriter{w: w}
		}
		c.ipc, err = ipc.NewFileWriter(ws, ipc.WithSchema(c.schema), ipc.WithAllocator(c.mem))
	case EncodingArrowStream:
		c.ipc = ipc.NewWriter(w, ipc.WithSchema(c.schema), ipc.WithAllocator(c.mem))
	default:
		return nil, fmt.Errorf("capture writer: unknown encoding %q", enc)
	}
	if err != nil {
		return nil, fmt.Errorf("capture writer: %w", err)
	}
	return c, nil
}

// captureParquetProps are the Parquet writer properties of a capture file.
func captureParquetProps(opts CaptureOptions) *parquet.WriterProperties {
	// ZSTD level 1 is the Rust writer's default level. The Go codec
	// builds a new encoder, history window included, for every page, so
	// pages are made large enough to hold a numeric column chunk.
	props := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd), parquet.WithCompressionLevel(1),
		parquet.WithDataPageSize(8 << 20),
		parquet.WithMaxRowGroupLength(int64(opts.BatchRows)),
	}
	// Numeric columns gain little from dictionaries and cost a hash per
	// value; text columns arrive already dictionary-encoded.
	for _, name := range fixedColumns[2:] {
		props = append(props, parquet.WithDictionaryFor(name, false))
	}
	// Statistics of a dictionary column are computed from the unique
	// indices of every batch, which costs more than encoding them.
	for _, name := range append([]string{colEndpoint, colName}, opts.Extra...) {
		props = append(props, parquet.WithStatsFor(name, false))
	}
	return parquet.NewWriterProperties(props...)
}

// indexText gives every distinct value of each text column an id, so that
// a batch's dictionaries are built from ids rather than strings.
func (c *CaptureWriter) indexText() error {
	c.valueIDs = make([][]int32, c.textCols)
	c.values = make([][]string, c.textCols)
	c.localCode = make([][]int32, c.textCols)
	for col := range c.textCols {
		ids := map[string]int32{}
		c.valueIDs[col] = make([]int32, len(c.series))
		for i := range c.series {
			s := &c.series[i]
			if col == 0 && len(s.Extra) != len(c.opts.Extra) {
				return fmt.Errorf("capture writer: series %d has %d extra values for %d extra columns", i, len(s.Extra), len(c.opts.Extra))
			}
			if col == 0 && s.Bucket {
				c.buckets = true
			}
			v := c.textValue(i, col)
			id, ok := ids[v]
			if !ok {
				id = int32(len(c.values[col]))
				ids[v] = id
				c.values[col] = append(c.values[col], v)
			}
			c.valueIDs[col][i] = id
		}
		c.idxBuf = append(c.idxBuf, nil)
		c.localCode[col] = make([]int32, len(c.values[col]))
		for i := range c.localCode[col] {
			c.localCode[col][i] = -1
		}
	}
	return nil
}

func (c *CaptureWriter) textValue(series, col int) string {
	s := &c.series[series]
	switch col {
	case 0:
		return s.Endpoint
	case 1:
		return s.Name
	}
	return s.Extra[col-2]
}

func (c *CaptureWriter) buildSchema() *arrow.Schema {
	text := arrow.DataType(arrow.BinaryTypes.String)
	if c.enc == EncodingParquet {
		text = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	}
	f64 := arrow.PrimitiveTypes.Float64
	fields := []arrow.Field{
		{Name: colEndpoint, Type: text},
		{Name: colName, Type: text},
		{Name: colValue, Type: f64},
		{Name: "histogram_bucket_lower", Type: f64, Nullable: true},
		{Name: colBucketUpper, Type: f64, Nullable: true},
		{Name: "histogram_sum", Type: f64, Nullable: true},
		{Name: "histogram_count", Type: f64, Nullable: true},
		{Name: colSinceStart, Type: f64},
	}
	if !c.opts.NoTimestamp {
		fields = append(fields, arrow.Field{Name: colTimestamp, Type: arrow.PrimitiveTypes.Int64})
	}
	for _, name := range c.opts.Extra {
		fields = append(fields, arrow.Field{Name: name, Type: text})
	}
	return arrow.NewSchema(fields, nil)
}

// Write appends one row; a full batch is encoded before Write returns.
func (c *CaptureWriter) Write(s CaptureSample) error {
	if c.err != nil {
		return c.err
	}
	if c.closed {
		return errors.New("capture writer: write after close")
	}
	if s.Series < 0 || int(s.Series) >= len(c.series) {
		c.err = fmt.Errorf("capture writer: row %d names series %d of %d", c.rows+int64(len(c.batch)), s.Series, len(c.series))
		return c.err
	}
	c.batch = append(c.batch, s)
	if len(c.batch) == cap(c.batch) {
		return c.flush()
	}
	return nil
}

// Rows returns the number of rows written so far, buffered ones included.
func (c *CaptureWriter) Rows() int64 { return c.rows + int64(len(c.batch)) }

// Close encodes the buffered rows and finishes the file (the Parquet footer
// or the IPC end marker). It does not close the underlying writer.
func (c *CaptureWriter) Close() error {
	if c.closed {
		return c.err
	}
	c.closed = true
	if c.err == nil && len(c.batch) > 0 {
		c.err = c.flush()
	}
	if c.nulls != nil {
		c.nulls.Release()
		c.nulls = nil
	}
	var err error
	if c.parquet != nil {
		err = c.parquet.close()
	} else {
		err = c.ipc.Close()
	}
	if c.err == nil && err != nil {
		c.err = fmt.Errorf("capture writer: %w", err)
	}
	return c.err
}

func (c *CaptureWriter) flush() error {
	rec := c.record()
	defer rec.Release()
	var err error
	if c.parquet != nil {
		err = c.parquet.write(rec)
	} else {
		err = c.ipc.Write(rec)
	}
	if err != nil {
		c.err = fmt.Errorf("capture writer: rows %d-%d: %w", c.rows, c.rows+int64(len(c.batch))-1, err)
		return c.err
	}
	c.rows += int64(len(c.batch))
	c.batch = c.batch[:0]
	return nil
}

// record lays the buffered rows out as one record batch.
func (c *CaptureWriter) record() arrow.Record {
	n := len(c.batch)
	cols := make([]arrow.Array, 0, len(c.schema.Fields()))
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	values := grow(&c.valBuf, n)
	since := grow(&c.sinceBuf, n)
	stamps := grow(&c.tsBuf, n)
	for i := range c.batch {
		s := &c.batch[i]
		values[i] = s.Value
		stamps[i] = s.TimeNS
		since[i] = float64(s.TimeNS-c.opts.StartNS) / 1e9
	}
	cols = append(cols, c.textColumn(0), c.textColumn(1), float64Array(values))
	cols = append(cols, c.histogramColumns()...)
	cols = append(cols, float64Array(since))
	if !c.opts.NoTimestamp {
		cols = append(cols, int64Array(stamps))
	}
	for col := 2; col < c.textCols; col++ {
		cols = append(cols, c.textColumn(col))
	}
	return array.NewRecord(c.schema, cols, int64(n))
}

// textColumn builds one text column of the batch: a dictionary of the
// values the batch uses (Parquet), or plain Utf8 (Arrow IPC).
func (c *CaptureWriter) textColumn(col int) arrow.Array {
	ids, local := c.valueIDs[col], c.localCode[col]
	if c.enc != EncodingParquet {
		b := array.NewStringBuilder(c.mem)
		defer b.Release()
		b.Reserve(len(c.batch))
		for i := range c.batch {
			b.Append(c.values[col][ids[c.batch[i].Series]])
		}
		return b.NewArray()
	}
	dict := array.NewStringBuilder(c.mem)
	defer dict.Release()
	var used []int32
	indices := grow(&c.idxBuf[col], len(c.batch))
	for i := range c.batch {
		id := ids[c.batch[i].Series]
		code := local[id]
		if code < 0 {
			code = int32(len(used))
			local[id] = code
			used = append(used, id)
			dict.Append(c.values[col][id])
		}
		indices[i] = code
	}
	for _, id := range used {
		local[id] = -1
	}
	d := dict.NewArray()
	defer d.Release()
	idx := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(indices),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(indices))}, nil, 0, 0))
	defer idx.Release()
	return array.NewDictionaryArray(c.schema.Field(0).Type, idx, d)
}

// histogramColumns returns lower, upper, sum and count: all null unless a
// series is a bucket.
func (c *CaptureWriter) histogramColumns() []arrow.Array {
	n := len(c.batch)
	if !c.buckets {
		if c.nulls == nil || c.nulls.Len() != n {
			if c.nulls != nil {
				c.nulls.Release()
			}
			c.nulls = array.MakeArrayOfNull(c.mem, arrow.PrimitiveTypes.Float64, n)
		}
		out := make([]arrow.Array, 4)
		for i := range out {
			c.nulls.Retain()
			out[i] = c.nulls
		}
		return out
	}
	bs := make([]*array.Float64Builder, 4)
	for i := range bs {
		bs[i] = array.NewFloat64Builder(c.mem)
		bs[i].Reserve(n)
		defer bs[i].Release()
	}
	for i := range c.batch {
		row := &c.batch[i]
		s := &c.series[row.Series]
		if !s.Bucket {
			for _, b := range bs {
				b.AppendNull()
			}
			continue
		}
		bs[0].Append(s.Lower)
		if math.IsInf(s.Upper, 1) {
			bs[1].AppendNull()
		} else {
			bs[1].Append(s.Upper)
		}
		bs[2].Append(row.Sum)
		bs[3].Append(row.Count)
	}
	out := make([]arrow.Array, 4)
	for i, b := range bs {
		out[i] = b.NewArray()
	}
	return out
}

// grow returns (*buf)[:n], reallocating only when it is too short.
func grow[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

func float64Array(v []float64) arrow.Array {
	return array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, len(v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(v))}, nil, 0, 0))
}

func int64Array(v []int64) arrow.Array {
	return array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, len(v),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(v))}, nil, 0, 0))
}

// tellWriter answers the position queries of the Arrow IPC file writer,
// which only ever asks where it is, on a writer that cannot seek.
type tellWriter struct {
	w   io.Writer
	pos int64
}

func (t *tellWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.pos += int64(n)
	return n, err
}

func (t *tellWriter) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekCurrent {
		return 0, errors.New("capture writer: output cannot seek")
	}
	return t.pos, nil
}

// nopCloser keeps the Parquet writer from closing the caller's writer.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
