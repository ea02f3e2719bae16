package tachometer

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// FuzzStatisticsRange takes the timestamp range from damaged footers. A
// range taken from statistics must be one a scan could have found (rows
// as the footer declares them, min <= max when there are rows), and a
// panic raised in this package is a bug.
func FuzzStatisticsRange(f *testing.F) {
	rec := mixedRecord(f, 60, false)
	defer rec.Release()
	for _, props := range [][]parquet.WriterProperty{
		{parquet.WithCompression(compress.Codecs.Uncompressed)},
		{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageVersion(parquet.DataPageV2)},
		{parquet.WithCompression(compress.Codecs.Uncompressed), parquet.WithStatsFor(colTimestamp, false)},
	} {
		var seed bytes.Buffer
		writeParquetGroupsTo(f, &seed, rec, []int64{40, 7}, props...)
		f.Add(seed.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		fr, declared, ok, err := statisticsRangeOfData(data)
		if p, own := err.(*ownPanic); own {
			t.Fatalf("panic in this package: %v\n%s", p.value, p.stack)
		}
		if err != nil || !ok {
			return
		}
		if fr.rows != declared {
			t.Fatalf("statistics give %d rows, the footer declares %d", fr.rows, declared)
		}
		if fr.rows > 0 && fr.min > fr.max {
			t.Fatalf("statistics give the range [%d, %d]", fr.min, fr.max)
		}
	})
}

func statisticsRangeOfData(data []byte) (fr fileRange, declared int64, ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			stack := string(debug.Stack())
			if panickedHere(stack) && !strings.Contains(fmt.Sprint(p), "byte limit") {
				err = &ownPanic{p, stack}
			} else {
				err = fmt.Errorf("corrupt: %v", p)
			}
		}
	}()
	src, _, err := openSourceWith(memOpen(data), "final.parquet")
	if err != nil {
		return fr, 0, false, err
	}
	defer src.close()
	ps, isParquet := src.(*parquetSource)
	if !isParquet {
		return fr, 0, false, nil
	}
	fr, ok = ps.statisticsRange()
	return fr, ps.pf.NumRows(), ok, nil
}
