package tachometer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime/debug"
	"strings"
	"testing"
	"time"

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
		// Seeds and inputs stay in memory: a fuzzing worker is killed when
		// the fuzz time ends, before any cleanup of a temporary directory
		// runs (f.TempDir left a FuzzParquetSource* directory in the system
		// temporary directory per worker and run).
		var seed bytes.Buffer
		writeParquetGroupsTo(f, &seed, rec, []int64{40, 7}, props...)
		if i == 0 {
			if rows, _, err := decodeAll(memOpen(seed.Bytes())); err != nil || rows != rec.NumRows() {
				f.Fatalf("seed decodes to %d rows (%v), not %d", rows, err, rec.NumRows())
			}
		}
		f.Add(seed.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		rows, declared, err := decodeAll(memOpen(data))
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

// memOpen serves one in-memory capture file as an OpenFunc.
func memOpen(data []byte) OpenFunc {
	return func(string) (Handle, error) { return &memHandle{bytes.NewReader(data)}, nil }
}

type memHandle struct{ *bytes.Reader }

func (memHandle) Close() error                 { return nil }
func (h memHandle) Stat() (fs.FileInfo, error) { return memInfo(h.Size()), nil }

type memInfo int64

func (memInfo) Name() string           { return "final.parquet" }
func (n memInfo) Size() int64          { return int64(n) }
func (memInfo) Mode() fs.FileMode      { return 0o444 }
func (memInfo) ModTime() (t time.Time) { return t }
func (memInfo) IsDir() bool            { return false }
func (memInfo) Sys() any               { return nil }

// decodeAll decodes every batch of a capture file as a read does.
func decodeAll(open OpenFunc) (rows, declared int64, err error) {
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
	src, _, err := openSourceWith(open, "final.parquet")
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
