package tachometer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// FuzzParquetSource decodes damaged Parquet files. The Arrow decoders may
// panic on corrupt input (the read reports that as a corrupt file), but a
// panic raised in this package's own decoding is a bug, as is decoding
// more rows than the footer declares.
func FuzzParquetSource(f *testing.F) {
	rec := mixedRecord(f, 60, false)
	defer rec.Release()
	for i, props := range [][]parquet.WriterProperty{
		{parquet.WithCompression(compress.Codecs.Uncompressed)},
		{parquet.WithCompression(compress.Codecs.Uncompressed), parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(512)},
		{parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageVersion(parquet.DataPageV2)},
		{parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryPageSizeLimit(300), parquet.WithBatchSize(32)},
	} {
		path := filepath.Join(f.TempDir(), fmt.Sprint(i), "final.parquet")
		writeParquetGroups(f, path, rec, []int64{40, 7}, props...)
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		path := filepath.Join(t.TempDir(), "final.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, declared, err := decodeAll(path)
		if p, ok := err.(*ownPanic); ok {
			t.Fatalf("panic in this package: %v\n%s", p.value, p.stack)
		}
		if err == nil && rows != declared {
			t.Fatalf("decoded %d rows, the footer declares %d", rows, declared)
		}
	})
}

type ownPanic struct {
	value any
	stack string
}

func (p *ownPanic) Error() string { return fmt.Sprint(p.value) }

// decodeAll decodes every batch of a capture file as a read does.
func decodeAll(path string) (rows, declared int64, err error) {
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
	src, _, err := openSource(path)
	if err != nil {
		return 0, 0, err
	}
	defer src.close()
	l, err := checkSchema(src.schema())
	if err != nil {
		return 0, 0, err
	}
	if err := src.project(l); err != nil {
		return 0, 0, err
	}
	if ps, ok := src.(*parquetSource); ok {
		declared = ps.pf.NumRows()
	}
	var b batch
	for {
		err := src.next(&b)
		if errors.Is(err, io.EOF) {
			return rows, declared, nil
		}
		if err != nil {
			return rows, declared, err
		}
		for _, id := range b.ids[:b.n] {
			if int(id)*b.width >= len(b.tuples) {
				return rows, declared, &ownPanic{fmt.Sprintf("id %d has no tuple", id), ""}
			}
		}
		rows += int64(b.n)
	}
}

// panickedHere reports whether the innermost non-runtime frame below the
// panic in stack is a function of this package.
func panickedHere(stack string) bool {
	lines := strings.Split(stack, "\n")
	at := -1
	for i, line := range lines {
		if strings.HasPrefix(line, "panic(") {
			at = i
		}
	}
	for i := at + 1; at >= 0 && i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "runtime.") {
			continue
		}
		return strings.Contains(line, "dsight/internal/tachometer.")
	}
	return false
}
