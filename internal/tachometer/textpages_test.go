package tachometer

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
)

// textLayouts are the ways a writer lays out text columns that textPages
// decodes: dictionary pages, PLAIN pages, a dictionary that falls back to
// PLAIN mid-chunk, V1 and V2 pages, nulls (hostname, rank) and required
// columns (metric_name, scraper_endpoint).
var textLayouts = []struct {
	name  string
	props []parquet.WriterProperty
}{
	{"default", nil},
	{"plain text", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(2_048)}},
	{"dictionary fallback", []parquet.WriterProperty{parquet.WithDictionaryPageSizeLimit(2_000), parquet.WithDataPageSize(4_096), parquet.WithBatchSize(256)}},
	{"tiny pages", []parquet.WriterProperty{parquet.WithDataPageSize(256), parquet.WithBatchSize(64)}},
	{"data page v2", []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDataPageSize(2_048), parquet.WithCompression(compress.Codecs.Snappy)}},
	{"v2 fallback", []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDictionaryPageSizeLimit(2_000),
		parquet.WithDataPageSize(4_096), parquet.WithBatchSize(256), parquet.WithCompression(compress.Codecs.Uncompressed)}},
}

// TestTextPagesMatchArrow decodes every text column of files written by
// Arrow, in row groups of uneven sizes and reads of random lengths that
// cross pages, and requires the values Arrow's ByteArray column reader
// gives, nulls included.
func TestTextPagesMatchArrow(t *testing.T) {
	const rows = 30_000
	rec := mixedRecord(t, rows, false)
	defer rec.Release()
	for _, tt := range textLayouts {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			props := append([]parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd)}, tt.props...)
			writeParquetGroupsTo(t, &buf, rec, []int64{20_000, 1, 9_999}, props...)
			path := filepath.Join(t.TempDir(), "final.parquet")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			checkPages(t, path, tt.name)
			src := bytes.NewReader(buf.Bytes())
			pf, err := file.NewParquetReader(src)
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			for _, name := range []string{colName, colEndpoint, colHostname, colRank} {
				want := arrowTexts(t, pf, name)
				got := directTexts(t, pf, src, name, rand.New(rand.NewPCG(3, uint64(len(name)))))
				if len(got) != len(want) {
					t.Fatalf("%s: %d values, Arrow reads %d", name, len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s: row %d is %q, Arrow reads %q", name, i, got[i], want[i])
					}
				}
			}
		})
	}
}

const nullText = "\x00null"

// arrowTexts reads a text column with Arrow's column reader.
func arrowTexts(t *testing.T, pf *file.Reader, name string) []string {
	t.Helper()
	leaf := pf.MetaData().Schema.ColumnIndexByName(name)
	var out []string
	for g := range pf.NumRowGroups() {
		cr, err := pf.RowGroup(g).Column(leaf)
		if err != nil {
			t.Fatal(err)
		}
		rd := cr.(*file.ByteArrayColumnChunkReader)
		n := int(pf.RowGroup(g).NumRows())
		vals, defs := make([]parquet.ByteArray, n), make([]int16, n)
		total, _, err := rd.ReadBatch(int64(n), vals, defs, nil)
		if err != nil || total != int64(n) {
			t.Fatalf("%s: arrow read %d of %d rows: %v", name, total, n, err)
		}
		k := 0
		for i := range n {
			if pf.MetaData().Schema.Column(leaf).MaxDefinitionLevel() > 0 && defs[i] == 0 {
				out = append(out, nullText)
				continue
			}
			out = append(out, string(vals[k]))
			k++
		}
	}
	return out
}

// directTexts reads a text column with textPages, in reads of random
// lengths, and fails unless every chunk takes that path.
func directTexts(t *testing.T, pf *file.Reader, src io.ReaderAt, name string, rng *rand.Rand) []string {
	t.Helper()
	fm := pf.MetaData()
	leaf := fm.Schema.ColumnIndexByName(name)
	code := newColumnCoder(false)
	pages := &columnPages{mem: pageMemory{recycle: true}}
	var tp textPages
	var out []string
	for g := range pf.NumRowGroups() {
		rg := fm.RowGroup(g)
		chunk, err := rg.ColumnChunk(leaf)
		if err != nil {
			t.Fatal(err)
		}
		if !directText(chunk) {
			t.Fatalf("%s: row group %d lists encodings %v", name, g, chunk.Encodings())
		}
		if err := pages.open(src, fm, rg, leaf); err != nil {
			t.Fatal(err)
		}
		tp.reset(pages, code, fm.Schema.Column(leaf).MaxDefinitionLevel())
		for left := int(rg.NumRows()); left > 0; {
			k := min(left, 1+rng.IntN(700))
			if rng.IntN(3) == 0 {
				k = min(left, 1+rng.IntN(4)) // short reads often hold one code
			}
			rows := make([]int32, k)
			one, isOne, err := tp.read(rows)
			if err != nil {
				t.Fatalf("%s: row group %d: %v", name, g, err)
			}
			// The read says its rows hold one code exactly when they do.
			same := true
			for _, c := range rows {
				same = same && c == rows[0]
			}
			if isOne != same || isOne && one != rows[0] {
				t.Fatalf("%s: row group %d: read of %d rows says one code %v (%d); the rows say %v", name, g, k, isOne, one, same)
			}
			for _, c := range rows {
				if c == 0 {
					out = append(out, nullText)
				} else {
					out = append(out, code.texts[c-1])
				}
			}
			left -= k
		}
		if more, err := tp.more(); more || err != nil {
			t.Fatalf("%s: row group %d has more rows (%v, %v)", name, g, more, err)
		}
	}
	return out
}

// TestOtherTextEncodingsGoThroughArrow writes two text columns with the
// DELTA encodings, which textPages does not decode: their chunks take
// Arrow's reader, the others textPages, and the read delivers what the
// same rows stored as an Arrow IPC file deliver.
func TestOtherTextEncodingsGoThroughArrow(t *testing.T) {
	const rows = 20_000
	rec := mixedRecord(t, rows, false)
	defer rec.Release()
	arrowDir, parquetDir := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "p")
	writeArrowRecord(t, filepath.Join(arrowDir, "final.parquet"), rec)
	path := filepath.Join(parquetDir, "final.parquet")
	writeParquetGroups(t, path, rec, []int64{12_000}, parquet.WithDataPageSize(2_048),
		parquet.WithDictionaryFor(colName, false), parquet.WithEncodingFor(colName, parquet.Encodings.DeltaByteArray),
		parquet.WithDictionaryFor(colHostname, false), parquet.WithEncodingFor(colHostname, parquet.Encodings.DeltaLengthByteArray))
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for g := range pf.NumRowGroups() {
		for _, name := range []string{colName, colHostname, colEndpoint, colRank} {
			chunk, err := pf.MetaData().RowGroup(g).ColumnChunk(pf.MetaData().Schema.ColumnIndexByName(name))
			if err != nil {
				t.Fatal(err)
			}
			if want := name == colEndpoint || name == colRank; directText(chunk) != want {
				t.Fatalf("row group %d: %s with encodings %v: direct %v", g, name, chunk.Encodings(), !want)
			}
		}
	}
	pf.Close()
	want, wantRes := read(t, arrowDir, Options{})
	got, gotRes := read(t, parquetDir, Options{})
	if !reflect.DeepEqual(got.series, want.series) || !reflect.DeepEqual(got.points, want.points) {
		t.Fatalf("series or points differ: %d/%d series, %d/%d points", len(got.series), len(want.series), len(got.points), len(want.points))
	}
	gotRes.Files, wantRes.Files = nil, nil
	if !reflect.DeepEqual(gotRes, wantRes) {
		t.Fatalf("results differ:\n%+v\n%+v", gotRes.Audit, wantRes.Audit)
	}
}
