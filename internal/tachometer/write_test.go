package tachometer

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

var writeExtra = []string{"gpu", "hostname", "rank", "worker_index", "worker_role"}

func writeSeries() []CaptureSeries {
	node := func(gpu, rank string) []string { return []string{gpu, "node-b", rank, "0", "decode"} }
	return []CaptureSeries{
		{Endpoint: "dcgm", Name: `DCGM_FI_DEV_GPU_UTIL{gpu="0",modelName="NVIDIA GB200"}`, Extra: node("0", "4")},
		{Endpoint: "dcgm", Name: `DCGM_FI_DEV_GPU_UTIL{gpu="1",modelName="NVIDIA GB200"}`, Extra: node("1", "5")},
		{Endpoint: "decode", Name: `sglang:num_running_reqs{model_name="m"}`, Extra: node("", "")},
		{Endpoint: "decode", Name: `lat_bucket{le="1"}`, Extra: node("", ""), Bucket: true, Lower: 0, Upper: 1},
		{Endpoint: "decode", Name: `lat_bucket{le="+Inf"}`, Extra: node("", ""), Bucket: true, Lower: 1, Upper: math.Inf(1)},
	}
}

// writeSamples writes scrapes of every series, one per second, and returns
// the rows in file order.
func writeSamples(t testing.TB, c *CaptureWriter, series, scrapes int) []CaptureSample {
	t.Helper()
	var rows []CaptureSample
	for k := range scrapes {
		for s := range series {
			row := CaptureSample{Series: int32(s), TimeNS: t0 + int64(k)*sec, Value: float64(100*s + k)}
			if s >= 3 {
				row.Sum, row.Count = float64(10*k), float64(s+k)
			}
			if err := c.Write(row); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func TestCaptureWriterRoundTrip(t *testing.T) {
	// Read decodes Parquet text as dictionaries one row group at a time, so
	// a file of many row groups with different dictionaries reads back.
	for _, tc := range []struct {
		enc   Encoding
		name  string
		batch int
	}{
		{EncodingParquet, FinalName, 1000},
		// Several row groups whose dictionaries differ: read one group at a time.
		{EncodingParquet, FinalName, 5},
		{EncodingArrowFile, "current.arrow", 7},
		{EncodingArrowStream, "current.arrow", 7},
	} {
		t.Run(string(tc.enc), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "tachometer", "local", "capture")
			path := filepath.Join(root, tc.name)
			mkdir(t, path)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			series := writeSeries()
			w, err := NewCaptureWriter(f, tc.enc, series, CaptureOptions{Extra: writeExtra, StartNS: t0 - 5*sec, BatchRows: tc.batch})
			if err != nil {
				t.Fatal(err)
			}
			rows := writeSamples(t, w, len(series), 6)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if w.Rows() != int64(len(rows)) {
				t.Errorf("Rows() = %d, want %d", w.Rows(), len(rows))
			}

			sink, res := read(t, root, Options{})
			if len(res.Files) != 1 || res.Files[0].Encoding != tc.enc || res.Files[0].Rows != int64(len(rows)) {
				t.Fatalf("files = %+v, want one %s file of %d rows", res.Files, tc.enc, len(rows))
			}
			if res.Audit.Points != int64(len(rows)) || res.Audit.Duplicates != 0 || res.Audit.Families != 3 {
				t.Errorf("audit = %+v, want %d points in 3 families", res.Audit, len(rows))
			}
			if len(sink.series) != len(series) {
				t.Fatalf("%d series read, want %d", len(sink.series), len(series))
			}
			for _, p := range sink.points {
				want := rows[p.Row]
				info := sink.series[p.Series]
				if p.TimeNS != want.TimeNS || p.Value != want.Value || info.RawName != series[want.Series].Name {
					t.Fatalf("row %d read as %+v of %s, wrote %+v of %s", p.Row, p, info.RawName, want, series[want.Series].Name)
				}
			}
			for _, info := range sink.series {
				if info.Worker != "decode-0" || info.Host != "node-b" {
					t.Errorf("%s: worker %q host %q, want decode-0 on node-b", info.RawName, info.Worker, info.Host)
				}
				if strings.HasPrefix(info.RawName, "DCGM") && info.Rank == "" {
					t.Errorf("%s: rank column not read", info.RawName)
				}
			}
			if fam := familyByName(t, res, "lat"); !fam.Histogram {
				t.Errorf("lat family not read as a histogram: %+v", fam)
			}
		})
	}
}

// TestCaptureWriterParquetSchema checks the stored columns: the writer's
// order, plain UTF-8 text (no dictionary type leaks into the file), the
// batch size as the row-group size, and every value across row groups whose
// dictionaries differ.
func TestCaptureWriterParquetSchema(t *testing.T) {
	var buf bytes.Buffer
	series := writeSeries()[:3]
	w, err := NewCaptureWriter(&buf, EncodingParquet, series, CaptureOptions{Extra: writeExtra, StartNS: t0, BatchRows: 5})
	if err != nil {
		t.Fatal(err)
	}
	rows := writeSamples(t, w, len(series), 4)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if pf.NumRowGroups() != 3 {
		t.Errorf("%d row groups, want 3 (12 rows in groups of 5)", pf.NumRowGroups())
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := fr.Schema()
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string(nil), fixedColumns...), writeExtra...)
	for i, f := range schema.Fields() {
		if i >= len(want) || f.Name != want[i] {
			t.Fatalf("column %d is %q, want order %v", i, f.Name, want)
		}
		if (i < 2 || i >= len(fixedColumns)) && f.Type.ID() != arrow.STRING {
			t.Errorf("column %q has type %s, want utf8", f.Name, f.Type)
		}
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != int64(len(rows)) {
		t.Fatalf("%d rows, want %d", tbl.NumRows(), len(rows))
	}
	col := func(i int) []arrow.Array { return tbl.Column(i).Data().Chunks() }
	var names []string
	var values, since []float64
	for _, a := range col(1) {
		for i := range a.Len() {
			names = append(names, a.(*array.String).Value(i))
		}
	}
	for _, a := range col(2) {
		values = append(values, a.(*array.Float64).Float64Values()...)
	}
	for _, a := range col(7) {
		since = append(since, a.(*array.Float64).Float64Values()...)
	}
	for i, r := range rows {
		if names[i] != series[r.Series].Name || values[i] != r.Value || since[i] != float64(r.TimeNS-t0)/1e9 {
			t.Fatalf("row %d = %s %v %v, wrote %+v", i, names[i], values[i], since[i], r)
		}
	}
}

func TestCaptureWriterErrors(t *testing.T) {
	series := writeSeries()
	for _, tc := range []struct {
		name   string
		enc    Encoding
		series []CaptureSeries
		opts   CaptureOptions
	}{
		{"reserved extra", EncodingParquet, series, CaptureOptions{Extra: []string{"timestamp_ns"}}},
		{"repeated extra", EncodingParquet, series, CaptureOptions{Extra: []string{"gpu", "gpu"}}},
		{"empty extra", EncodingParquet, series, CaptureOptions{Extra: []string{""}}},
		{"extra count", EncodingParquet, series, CaptureOptions{Extra: writeExtra[:2]}},
		{"encoding", Encoding("csv"), series, CaptureOptions{Extra: writeExtra}},
	} {
		if _, err := NewCaptureWriter(io.Discard, tc.enc, tc.series, tc.opts); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	w, err := NewCaptureWriter(io.Discard, EncodingArrowStream, series, CaptureOptions{Extra: writeExtra})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(CaptureSample{Series: int32(len(series))}); err == nil {
		t.Error("a row naming a missing series was accepted")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after a failed Write reported no error")
	}
	w, err = NewCaptureWriter(io.Discard, EncodingArrowFile, series, CaptureOptions{Extra: writeExtra})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(CaptureSample{}); err == nil {
		t.Error("write after close accepted")
	}
}

// BenchmarkCaptureWriterParquet writes a DCGM-shaped capture sorted by
// metric name, the layout of final.parquet.
func BenchmarkCaptureWriterParquet(b *testing.B) {
	const gpus, families, scrapes = 64, 16, 1000
	var series []CaptureSeries
	for f := range families {
		for g := range gpus {
			series = append(series, CaptureSeries{
				Endpoint: "dcgm",
				Name:     "DCGM_FI_DEV_" + string(rune('A'+f)) + `{gpu="` + string(rune('0'+g%4)) + `",Hostname="node-` + string(rune('a'+g/4)) + `"}`,
				Extra:    []string{string(rune('0' + g%4)), "node-" + string(rune('a'+g/4))},
			})
		}
	}
	rows := int64(len(series) * scrapes)
	var bytesOut int64
	for b.Loop() {
		cw := &countWriter{}
		w, err := NewCaptureWriter(cw, EncodingParquet, series, CaptureOptions{Extra: []string{"gpu", "hostname"}, StartNS: t0, BatchRows: 1 << 20})
		if err != nil {
			b.Fatal(err)
		}
		for s := range series {
			for k := range scrapes {
				if err := w.Write(CaptureSample{Series: int32(s), TimeNS: t0 + int64(k)*sec, Value: float64(k % 97)}); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		bytesOut = cw.n
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(bytesOut)/float64(rows), "bytes/row")
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
