package tachometer

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// Row is one capture row as the Tachometer writer lays it out. Extra holds
// the metadata columns; every row of a file gets every extra column any row
// names ("" when absent), as the writer does.
type Row struct {
	TS       int64
	Name     string
	Value    float64
	Endpoint string
	Upper    *float64 // histogram_bucket_upper; nil is null (+Inf or scalar)
	Sum      *float64
	Count    *float64
	Extra    map[string]string
	NullVal  bool // write metric_value as null
}

// layoutOpts vary the schema the way historical and compacted captures do.
type layoutOpts struct {
	omit        []string // required columns to leave out
	float32     bool     // older captures: float32 values and histogram fields
	noTimestamp bool     // older captures: no timestamp_ns
	clean       bool     // compacted captures: metric_name_clean
	dictNames   bool     // metric_name as dictionary<utf8>
	extraTypes  map[string]arrow.DataType
}

func ptr(v float64) *float64 { return &v }

func extraNames(rows []Row) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r.Extra {
			seen[k] = true
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// buildRecord lays rows out in the writer's column order.
func buildRecord(t testing.TB, rows []Row, o layoutOpts) arrow.Record {
	t.Helper()
	mem := memory.DefaultAllocator
	floatType := arrow.DataType(arrow.PrimitiveTypes.Float64)
	if o.float32 {
		floatType = arrow.PrimitiveTypes.Float32
	}
	var fields []arrow.Field
	var builders []func(Row, array.Builder)
	add := func(name string, typ arrow.DataType, nullable bool, fill func(Row, array.Builder)) {
		if slices.Contains(o.omit, name) {
			return
		}
		fields = append(fields, arrow.Field{Name: name, Type: typ, Nullable: nullable})
		builders = append(builders, fill)
	}
	appendFloat := func(b array.Builder, v *float64) {
		switch b := b.(type) {
		case *array.Float64Builder:
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(*v)
			}
		case *array.Float32Builder:
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(float32(*v))
			}
		}
	}
	str := func(get func(Row) string) func(Row, array.Builder) {
		return func(r Row, b array.Builder) {
			switch b := b.(type) {
			case *array.StringBuilder:
				b.Append(get(r))
			case *array.BinaryDictionaryBuilder:
				if err := b.AppendString(get(r)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	add("scraper_endpoint", arrow.BinaryTypes.String, false, str(func(r Row) string { return r.Endpoint }))
	nameType := arrow.DataType(arrow.BinaryTypes.String)
	if o.dictNames {
		nameType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	}
	add("metric_name", nameType, false, str(func(r Row) string { return r.Name }))
	add("metric_value", floatType, false, func(r Row, b array.Builder) {
		if r.NullVal {
			appendFloat(b, nil)
		} else {
			appendFloat(b, &r.Value)
		}
	})
	add("histogram_bucket_lower", floatType, true, func(r Row, b array.Builder) { appendFloat(b, nil) })
	add("histogram_bucket_upper", floatType, true, func(r Row, b array.Builder) { appendFloat(b, r.Upper) })
	add("histogram_sum", floatType, true, func(r Row, b array.Builder) { appendFloat(b, r.Sum) })
	add("histogram_count", floatType, true, func(r Row, b array.Builder) { appendFloat(b, r.Count) })
	add("time_since_start", arrow.PrimitiveTypes.Float64, false, func(r Row, b array.Builder) {
		b.(*array.Float64Builder).Append(float64(r.TS-1789642700000000000) / 1e9)
	})
	if !o.noTimestamp {
		add("timestamp_ns", arrow.PrimitiveTypes.Int64, false, func(r Row, b array.Builder) {
			b.(*array.Int64Builder).Append(r.TS)
		})
	}
	for _, name := range extraNames(rows) {
		typ := arrow.DataType(arrow.BinaryTypes.String)
		if o.extraTypes[name] != nil {
			typ = o.extraTypes[name]
		}
		add(name, typ, false, func(r Row, b array.Builder) {
			switch b := b.(type) {
			case *array.StringBuilder:
				b.Append(r.Extra[name])
			case *array.Int64Builder:
				n, err := strconv.ParseInt(r.Extra[name], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				b.Append(n)
			}
		})
	}
	if o.clean {
		add("metric_name_clean", arrow.BinaryTypes.String, true, str(func(r Row) string {
			name, _, _ := ParseMetricName(r.Name)
			return name
		}))
	}
	schema := arrow.NewSchema(fields, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	for _, r := range rows {
		for i, fill := range builders {
			fill(r, rb.Field(i))
		}
	}
	return rb.NewRecord()
}

// writeParquet writes rows as a zstd Parquet file the way the capture
// writer and compactor do.
func writeParquet(t testing.TB, path string, rows []Row, o layoutOpts) {
	t.Helper()
	rec := buildRecord(t, rows, o)
	defer rec.Release()
	writeParquetRecords(t, path, rec.Schema(), func(w *pqarrow.FileWriter) {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	})
}

func writeParquetRecords(t testing.TB, path string, schema *arrow.Schema, write func(*pqarrow.FileWriter)) {
	t.Helper()
	mkdir(t, path)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithMaxRowGroupLength(200_000))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	write(w)
	if err := w.Close(); err != nil { // closes f
		t.Fatal(err)
	}
}

// writeArrowStream writes rows as an Arrow IPC stream, like current.arrow.
func writeArrowStream(t testing.TB, path string, rows []Row, o layoutOpts) {
	t.Helper()
	rec := buildRecord(t, rows, o)
	defer rec.Release()
	mkdir(t, path)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := ipc.NewWriter(f, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeArrowFile writes rows as an Arrow IPC file (ARROW1 magic).
func writeArrowFile(t testing.TB, path string, rows []Row, o layoutOpts) {
	t.Helper()
	rec := buildRecord(t, rows, o)
	defer rec.Release()
	writeArrowRecord(t, path, rec)
}

func mkdir(t testing.TB, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
}

// collector is a Sink that keeps everything, for tests.
type collector struct {
	series []SeriesInfo
	points []Point
}

func (c *collector) Series(s *SeriesInfo) error {
	if s.ID != len(c.series) {
		panic("series ids must be dense and announced in order")
	}
	c.series = append(c.series, *s)
	return nil
}

func (c *collector) Points(p []Point) error {
	for _, pt := range p {
		if int(pt.Series) >= len(c.series) {
			panic("point before its series")
		}
	}
	c.points = append(c.points, p...)
	return nil
}

// pointsOf returns one series' points in delivery order.
func (c *collector) pointsOf(id int) []Point {
	var out []Point
	for _, p := range c.points {
		if int(p.Series) == id {
			out = append(out, p)
		}
	}
	return out
}

// read discovers and reads root, failing the test on error.
func read(t *testing.T, root string, opts Options) (*collector, *Result) {
	t.Helper()
	c, err := Discover(root, true)
	if err != nil {
		t.Fatal(err)
	}
	var sink collector
	res, err := Read(c, opts, &sink)
	if err != nil {
		t.Fatal(err)
	}
	return &sink, res
}

// readErr discovers and reads root and returns the error.
func readErr(t *testing.T, root string, opts Options) error {
	t.Helper()
	c, err := Discover(root, true)
	if err != nil {
		return err
	}
	_, err = Read(c, opts, &collector{})
	return err
}

func familyByName(t *testing.T, res *Result, name string) Family {
	t.Helper()
	for _, f := range res.Families {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("family %q not catalogued; have %v", name, familyNames(res))
	return Family{}
}

func familyNames(res *Result) []string {
	var names []string
	for _, f := range res.Families {
		names = append(names, f.Name)
	}
	return names
}
