package tachometer

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// mixedRecord builds n rows exercising what the Parquet decoder must get
// right: nulls and empty strings in identity columns, null values, a
// nullable integer identity column, histogram bounds, and enough distinct
// names to outgrow a small dictionary page.
func mixedRecord(t testing.TB, n int, float32s bool) arrow.Record {
	t.Helper()
	floatType := arrow.DataType(arrow.PrimitiveTypes.Float64)
	if float32s {
		floatType = arrow.PrimitiveTypes.Float32
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "scraper_endpoint", Type: arrow.BinaryTypes.String},
		{Name: "metric_name", Type: arrow.BinaryTypes.String},
		{Name: "metric_value", Type: floatType, Nullable: true},
		{Name: "histogram_bucket_upper", Type: floatType, Nullable: true},
		{Name: "timestamp_ns", Type: arrow.PrimitiveTypes.Int64},
		{Name: "gpu", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "hostname", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "rank", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	appendFloat := func(b array.Builder, v float64) {
		if f, ok := b.(*array.Float32Builder); ok {
			f.Append(float32(v))
			return
		}
		b.(*array.Float64Builder).Append(v)
	}
	rng := rand.New(rand.NewPCG(7, 9))
	bounds := []string{"0.1", "0.5", "2.5", "+Inf"}
	for i := range n {
		rb.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("node_%d", rng.IntN(3)))
		ts := t0 + int64(i/50)*sec
		if rng.IntN(4) == 0 {
			le := bounds[rng.IntN(len(bounds))]
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf(`latency_seconds_bucket{le=%q,model="m%d"}`, le, rng.IntN(3)))
			if v, err := parseBound(le); err == nil && !math.IsInf(v, 1) && rng.IntN(2) == 0 {
				appendFloat(rb.Field(3), v)
			} else {
				rb.Field(3).AppendNull()
			}
		} else {
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf(`gauge_%d{device="nvidia%d"}`, rng.IntN(400), rng.IntN(8)))
			rb.Field(3).AppendNull()
		}
		switch rng.IntN(10) {
		case 0:
			rb.Field(2).AppendNull()
		case 1:
			appendFloat(rb.Field(2), math.NaN())
		default:
			appendFloat(rb.Field(2), float64(rng.IntN(1000))/8)
		}
		rb.Field(4).(*array.Int64Builder).Append(ts)
		if g := rng.IntN(9); g == 8 {
			rb.Field(5).AppendNull()
		} else {
			rb.Field(5).(*array.Int64Builder).Append(int64(g))
		}
		switch h := rng.IntN(5); h {
		case 0:
			rb.Field(6).AppendNull()
		case 1:
			rb.Field(6).(*array.StringBuilder).Append("")
		default:
			rb.Field(6).(*array.StringBuilder).Append(fmt.Sprintf("host-%d", h))
		}
		if r := rng.IntN(6); r < 2 {
			rb.Field(7).AppendNull()
		} else {
			rb.Field(7).(*array.StringBuilder).Append(fmt.Sprint(r))
		}
	}
	return rb.NewRecord()
}

// writeParquetGroups writes rec as Parquet with props, one row group per
// entry of groups (row counts, the last taking the rest).
func writeParquetGroups(t testing.TB, path string, rec arrow.Record, groups []int64, props ...parquet.WriterProperty) {
	t.Helper()
	mkdir(t, path)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	writeParquetGroupsTo(t, f, rec, groups, props...)
}

// writeParquetGroupsTo is writeParquetGroups onto out, which it closes
// when it is an io.Closer.
func writeParquetGroupsTo(t testing.TB, out io.Writer, rec arrow.Record, groups []int64, props ...parquet.WriterProperty) {
	t.Helper()
	w, err := pqarrow.NewFileWriter(rec.Schema(), out, parquet.NewWriterProperties(props...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	var at int64
	for i := 0; at < rec.NumRows(); i++ {
		end := rec.NumRows()
		if i < len(groups) {
			end = min(end, at+groups[i])
		}
		part := rec.NewSlice(at, end)
		if err := w.Write(part); err != nil {
			t.Fatal(err)
		}
		part.Release()
		at = end
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeArrowRecord(t testing.TB, path string, rec arrow.Record) {
	t.Helper()
	mkdir(t, path)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestParquetMatchesArrow reads the same rows stored as an Arrow IPC file
// and as Parquet written every way the decoder must handle; every read
// must deliver the same series, points and catalog.
func TestParquetMatchesArrow(t *testing.T) {
	const rows = 40_000
	tests := []struct {
		name    string
		float32 bool
		groups  []int64
		props   []parquet.WriterProperty
	}{
		{name: "default", groups: []int64{rows}},
		{name: "row groups of different sizes", groups: []int64{1, 999, 33_000, 7}},
		{name: "plain text", props: []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
		{name: "small pages", props: []parquet.WriterProperty{parquet.WithDataPageSize(1_024), parquet.WithBatchSize(128)}},
		// The writer falls back to PLAIN pages once a chunk's dictionary
		// outgrows the limit, mid-chunk.
		{name: "dictionary fallback", groups: []int64{25_000},
			props: []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(2_000), parquet.WithDataPageSize(4_096), parquet.WithBatchSize(256)}},
		{name: "data page v2", props: []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDataPageSize(8_192)}},
		// Text pages whose memory is reused for the next page of the column.
		{name: "plain text, small pages", props: []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(1_024)}},
		{name: "data page v2, dictionary fallback", groups: []int64{25_000}, props: []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithDictionaryPageSizeLimit(2_000), parquet.WithDataPageSize(4_096), parquet.WithCompression(compress.Codecs.Uncompressed)}},
		{name: "uncompressed", props: []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Uncompressed)}},
		{name: "snappy", props: []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageSize(2_048)}},
		{name: "float32", float32: true, props: []parquet.WriterProperty{parquet.WithDataPageSize(2_048)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := mixedRecord(t, rows, tt.float32)
			defer rec.Release()
			arrowDir, parquetDir := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "p")
			writeArrowRecord(t, filepath.Join(arrowDir, "final.parquet"), rec)
			props := append([]parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd)}, tt.props...)
			writeParquetGroups(t, filepath.Join(parquetDir, "final.parquet"), rec, tt.groups, props...)
			checkPages(t, filepath.Join(parquetDir, "final.parquet"), tt.name)

			want, wantRes := read(t, arrowDir, Options{})
			got, gotRes := read(t, parquetDir, Options{})
			if len(want.points) != rows-countNonFinite(wantRes) {
				t.Fatalf("arrow read delivered %d points", len(want.points))
			}
			if !reflect.DeepEqual(got.series, want.series) {
				t.Errorf("series differ: %d vs %d", len(got.series), len(want.series))
			}
			if !reflect.DeepEqual(got.points, want.points) {
				t.Errorf("points differ: %d vs %d", len(got.points), len(want.points))
			}
			gotRes.Files, wantRes.Files = nil, nil
			if !reflect.DeepEqual(gotRes, wantRes) {
				t.Errorf("results differ:\n%+v\n%+v", gotRes.Audit, wantRes.Audit)
			}
		})
	}
}

func countNonFinite(res *Result) int { return int(res.Audit.NonFinite + res.Audit.Duplicates) }

// checkPages confirms a layout test writes what it claims to: several
// pages per chunk, and PLAIN text pages where it says so.
func checkPages(t *testing.T, path, name string) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	col := pf.MetaData().Schema.ColumnIndexByName(colName)
	plain, dict, pages := 0, 0, 0
	for g := 0; g < pf.NumRowGroups(); g++ {
		pr, err := pf.RowGroup(g).GetColumnPageReader(col)
		if err != nil {
			t.Fatal(err)
		}
		for pr.Next() {
			switch p := pr.Page().(type) {
			case *file.DataPageV1, *file.DataPageV2:
				pages++
				if e := parquet.Encoding(p.Encoding()); e == parquet.Encodings.Plain {
					plain++
				} else {
					dict++
				}
			}
		}
	}
	switch {
	case name == "plain text" && (plain == 0 || dict > 0),
		name == "dictionary fallback" && (plain == 0 || dict == 0),
		name == "small pages" && pages < 100*pf.NumRowGroups():
		t.Fatalf("%s: %d dictionary and %d plain metric_name pages", name, dict, plain)
	}
}

// TestNullIdentityColumns reads a Parquet file whose identity columns are
// null in some rows: a null gpu is no gpu, not gpu 0, and a null hostname
// leaves the host unknown.
func TestNullIdentityColumns(t *testing.T) {
	rec := mixedRecord(t, 2_000, false)
	defer rec.Release()
	root := t.TempDir()
	writeParquetGroups(t, filepath.Join(root, "final.parquet"), rec, nil)
	sink, _ := read(t, root, Options{})
	gpus, hosts := map[string]bool{}, map[string]bool{}
	for _, s := range sink.series {
		gpus[s.GPU] = true
		hosts[s.HostSource+":"+s.Host] = true
	}
	if !gpus[""] || !gpus["0"] || !hosts[HostUnknown+":"] || !hosts[HostFromColumn+":host-2"] {
		t.Fatalf("gpus %v, hosts %v", gpus, hosts)
	}
}

// TestParquetNullTimestamp names the file and row of a null timestamp.
func TestParquetNullTimestamp(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "scraper_endpoint", Type: arrow.BinaryTypes.String},
		{Name: "metric_name", Type: arrow.BinaryTypes.String},
		{Name: "metric_value", Type: arrow.PrimitiveTypes.Float64},
		{Name: "timestamp_ns", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	for i := range 40_000 {
		rb.Field(0).(*array.StringBuilder).Append("e")
		rb.Field(1).(*array.StringBuilder).Append("up")
		rb.Field(2).(*array.Float64Builder).Append(1)
		if i == 33_000 {
			rb.Field(3).AppendNull()
		} else {
			rb.Field(3).(*array.Int64Builder).Append(t0 + int64(i)*sec)
		}
	}
	rec := rb.NewRecord()
	defer rec.Release()
	root := t.TempDir()
	path := filepath.Join(root, "final.parquet")
	writeParquetGroups(t, path, rec, []int64{10_000})
	err := readErr(t, root, Options{})
	if err == nil || !strings.Contains(err.Error(), path+": row 33000: null timestamp_ns") {
		t.Fatalf("err = %v", err)
	}
}

// TestIdentityCoderBeyond64Bits grows the codes until a packed key no
// longer holds them: ids must stay those of first appearance throughout.
func TestIdentityCoderBeyond64Bits(t *testing.T) {
	l := layout{identity: []string{"a", "b", "c", "d", "e", "f", "g", "h"}}
	c := newIdentityCoder(l, false)
	c.reserve(batchRows)
	rng := rand.New(rand.NewPCG(1, 1))
	want := map[string]int32{}
	var seen [][]int32
	ids := make([]int32, batchRows)
	for round := range 4 {
		n := 1 + rng.IntN(batchRows)
		var keys []string
		for i := range n {
			tuple := make([]int32, len(c.cols))
			if len(seen) > 0 && rng.IntN(2) == 0 {
				copy(tuple, seen[rng.IntN(len(seen))])
			} else {
				for k := range tuple {
					tuple[k] = int32(rng.IntN(1 << (2 + 2*round + k%3)))
				}
				seen = append(seen, tuple)
			}
			for k, col := range c.cols {
				for int(tuple[k]) > len(col.texts) {
					col.texts = append(col.texts, "")
				}
				col.rows[i] = tuple[k]
			}
			keys = append(keys, fmt.Sprint(tuple))
		}
		c.identify(n, ids)
		for i, key := range keys {
			id, ok := want[key]
			if !ok {
				id = int32(len(want))
				want[key] = id
			}
			if ids[i] != id {
				t.Fatalf("round %d row %d: id %d, want %d", round, i, ids[i], id)
			}
		}
		if packed := round < 3; c.packed != packed {
			t.Fatalf("round %d: packed %v", round, c.packed)
		}
	}
}

func ioSection(b []byte) *io.SectionReader {
	return io.NewSectionReader(bytes.NewReader(b), 0, int64(len(b)))
}

// TestChunkStream checks the page reader's buffered stream against the
// bytes it reads.
func TestChunkStream(t *testing.T) {
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var s chunkStream
	for _, size := range []int{0, 10, 20_000, len(data)} {
		s.reset(ioSection(data[:size]))
		var got []byte
		for step := 1; ; step = step*3%50_000 + 1 {
			view, err := s.Peek(step)
			if len(view) > step || !bytes.Equal(view, data[len(got):len(got)+len(view)]) {
				t.Fatalf("size %d: peek %d at %d returned other bytes", size, step, len(got))
			}
			if len(view) < step && err == nil {
				t.Fatalf("size %d: short peek without error", size)
			}
			n := min(len(view), step/2+1)
			if d, err := s.Discard(n); d != n || err != nil {
				t.Fatalf("size %d: discard %d = %d, %v", size, n, d, err)
			}
			got = append(got, data[len(got):len(got)+n]...)
			buf := make([]byte, step)
			m, _ := s.Read(buf)
			got = append(got, buf[:m]...)
			if len(got) >= size {
				break
			}
		}
		if !bytes.Equal(got, data[:size]) {
			t.Fatalf("size %d: read %d bytes that differ", size, len(got))
		}
		if d, err := s.Discard(5); d != 0 || err == nil {
			t.Fatalf("size %d: discard past the end = %d, %v", size, d, err)
		}
	}
}
