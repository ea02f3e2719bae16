package tachometer

import (
	"bytes"
	"io"
	"testing"

	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// TestCaptureWriterParquetMatchesArrowWriter requires the capture writer's
// Parquet files to be byte for byte those the Arrow Parquet writer (pqarrow)
// writes from the same record batches: histogram columns with and without
// nulls, all-null ones, extra columns, several row groups and a short last
// one, with and without timestamp_ns.
func TestCaptureWriterParquetMatchesArrowWriter(t *testing.T) {
	for _, tc := range []struct {
		name    string
		series  int // the first n of writeSeries (3 and more include buckets)
		scrapes int
		opts    CaptureOptions
	}{
		{"buckets, several row groups", 5, 40, CaptureOptions{Extra: writeExtra, StartNS: t0 - sec, BatchRows: 37}},
		{"no buckets", 3, 25, CaptureOptions{Extra: writeExtra, StartNS: t0, BatchRows: 16}},
		{"buckets alone, no extras", 5, 9, CaptureOptions{StartNS: t0}},
		{"no timestamp", 4, 12, CaptureOptions{Extra: writeExtra[:2], StartNS: t0, BatchRows: 10, NoTimestamp: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			series := writeSeries()[:tc.series]
			if len(tc.opts.Extra) != len(writeExtra) {
				for i := range series {
					series[i].Extra = series[i].Extra[:len(tc.opts.Extra)]
				}
			}
			if tc.name == "buckets alone, no extras" {
				series = series[3:]
			}
			var got bytes.Buffer
			c, err := NewCaptureWriter(&got, EncodingParquet, series, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			rows := writeSamples(t, c, len(series), tc.scrapes)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}

			// The same batches, laid out by the capture writer, written by
			// the Arrow writer with the same properties.
			ref, err := NewCaptureWriter(io.Discard, EncodingParquet, series, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			pw, err := pqarrow.NewFileWriter(ref.schema, nopCloser{&want}, captureParquetProps(ref.opts), pqarrow.DefaultWriterProps())
			if err != nil {
				t.Fatal(err)
			}
			for at := 0; at < len(rows); at += ref.opts.BatchRows {
				ref.batch = rows[at:min(at+ref.opts.BatchRows, len(rows))]
				rec := ref.record()
				err := pw.Write(rec)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := pw.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("capture writer wrote %d bytes, the Arrow writer %d, and they differ", got.Len(), want.Len())
			}
		})
	}
}
