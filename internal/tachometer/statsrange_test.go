package tachometer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
)

// TestStatisticsRangeMatchesScan requires the range taken from the footer
// to be the one decoding every timestamp finds, for row groups of uneven
// sizes (one of a single row), small pages and V2 pages, and a file without
// timestamp statistics to be scanned.
func TestStatisticsRangeMatchesScan(t *testing.T) {
	const rows = 40_000
	noStats := parquet.WithStatsFor(colTimestamp, false)
	tests := []struct {
		name   string
		groups []int64
		props  []parquet.WriterProperty
	}{
		{name: "one row group", groups: []int64{rows}},
		{name: "uneven row groups", groups: []int64{1, 999, 33_000, 7}},
		{name: "small pages", props: []parquet.WriterProperty{parquet.WithDataPageSize(1_024), parquet.WithBatchSize(128)}},
		{name: "data page v2", props: []parquet.WriterProperty{parquet.WithDataPageVersion(parquet.DataPageV2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := mixedRecord(t, rows, false)
			defer rec.Release()
			dir := t.TempDir()
			with, without := filepath.Join(dir, "with.parquet"), filepath.Join(dir, "without.parquet")
			writeParquetGroups(t, with, rec, tt.groups, tt.props...)
			writeParquetGroups(t, without, rec, tt.groups, append(tt.props, noStats)...)

			stated, ok := statisticsRangeOf(t, with)
			if !ok {
				t.Fatal("no range from the statistics of a file that has them")
			}
			if _, ok := statisticsRangeOf(t, without); ok {
				t.Fatal("a range from a file without timestamp statistics")
			}
			scanned, err := inspectFile(nil, without)
			if err != nil {
				t.Fatal(err)
			}
			if stated.rows != scanned.rows || stated.min != scanned.min || stated.max != scanned.max {
				t.Fatalf("statistics say %d rows in [%d, %d], the rows are %d in [%d, %d]",
					stated.rows, stated.min, stated.max, scanned.rows, scanned.min, scanned.max)
			}
			inspected, err := inspectFile(nil, with)
			if err != nil {
				t.Fatal(err)
			}
			if inspected != (fileRange{enc: EncodingParquet, rows: stated.rows, min: stated.min, max: stated.max}) {
				t.Fatalf("inspect found %+v, the statistics say %+v", inspected, stated)
			}
		})
	}
}

func statisticsRangeOf(t *testing.T, path string) (fileRange, bool) {
	t.Helper()
	src, _, err := openSourceWith(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	return src.(*parquetSource).statisticsRange()
}

// TestInspectReadsNoPageWithStatistics damages the timestamp pages of a
// file whose footer states their range: Inspect answers from the footer
// alone, and the read still reports the damage.
func TestInspectReadsNoPageWithStatistics(t *testing.T) {
	rec := mixedRecord(t, 40_000, false)
	defer rec.Release()
	root := t.TempDir()
	path := filepath.Join(root, "final.parquet")
	writeParquetGroups(t, path, rec, []int64{40_000}, parquet.WithDictionaryFor(colTimestamp, false))
	before, err := inspectFile(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	damageColumn(t, path, colTimestamp)

	c, err := Discover(root, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Inspect(); err != nil {
		t.Fatalf("inspect decoded a damaged page: %v", err)
	}
	if len(c.ranges) != 1 || c.ranges[0] != before {
		t.Fatalf("ranges %+v, want [%+v]", c.ranges, before)
	}
	if _, err := Read(c, Options{}, &collector{}); err == nil {
		t.Fatal("a damaged timestamp page read without an error")
	}
}

// damageColumn overwrites the middle of the first column chunk named col.
func damageColumn(t *testing.T, path, col string) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	leaf := pf.MetaData().Schema.ColumnIndexByName(col)
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(leaf)
	if err != nil {
		t.Fatal(err)
	}
	start, n := cc.DataPageOffset(), cc.TotalCompressedSize()
	pf.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := []byte(strings.Repeat("\xff", int(n/2)))
	if _, err := f.WriteAt(junk, start+n/4); err != nil {
		t.Fatal(err)
	}
}

// TestReadChecksTheStatedRange: a range Inspect took from statistics that
// the rows do not bear out fails the read, naming the file and both ranges.
func TestReadChecksTheStatedRange(t *testing.T) {
	rec := mixedRecord(t, 5_000, false)
	defer rec.Release()
	root := t.TempDir()
	path := filepath.Join(root, "final.parquet")
	writeParquetGroups(t, path, rec, []int64{5_000})
	for _, shift := range []struct{ min, max int64 }{{-1, 0}, {0, 1}, {1, 0}} {
		c, err := Discover(root, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Inspect(); err != nil {
			t.Fatal(err)
		}
		c.ranges[0].min += shift.min
		c.ranges[0].max += shift.max
		_, err = Read(c, Options{}, &collector{})
		if err == nil || !strings.Contains(err.Error(), path+": its rows span timestamps") || !strings.Contains(err.Error(), "Parquet statistics are wrong") {
			t.Fatalf("shift %+v: err = %v", shift, err)
		}
	}
	if _, res := read(t, root, Options{}); res.Files[0].Rows != 5_000 {
		t.Fatalf("rows %d", res.Files[0].Rows)
	}
}
