package tachometer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// FuzzTextPages decodes damaged dictionary and data pages of a text column.
// It must never panic or give a code the column does not have, and it must
// decode every value whenever the page check (checkDataPage) found the
// page's streams complete: the two read the hybrid encoding alike.
func FuzzTextPages(f *testing.F) {
	dict := plainBytes("a", "", "node_1")
	f.Add(dict, []byte{1, 6, 0, 2, 5, 0}, uint16(8), byte(0))          // required, RLE runs of index 0 and 1
	f.Add(dict, []byte{1, 0x03, 0b01_10_00_01, 0}, uint16(4), byte(0)) // one bit-packed group
	v1 := append(binary.LittleEndian.AppendUint32(nil, 2), 8, 1, 1, 16, 2)
	f.Add(dict, v1, uint16(4), byte(1)) // optional: 4 present rows of index 2
	f.Add(dict, append([]byte{2, 0}, plainBytes("x", "y", "")...), uint16(3), byte(2))
	f.Add(dict, []byte{2, 1, 1, 1, 1}, uint16(9), byte(3)) // V2 levels, then indices
	f.Fuzz(func(t *testing.T, dictData, data []byte, n uint16, mode byte) {
		defer fuzzlimit.Start(t)()
		maxDef := int16(mode & 1)
		enc := parquet.Encodings.RLEDict
		if mode&2 != 0 && mode&1 == 0 {
			enc = parquet.Encodings.Plain
		}
		var pg file.Page
		if mode&2 != 0 && mode&1 == 1 && len(data) > 0 { // V2: the first byte is the levels' length
			dl := int32(data[0])
			data = data[1:]
			pg = file.NewDataPageV2(memory.NewBufferBytes(data), int32(n), 0, int32(n), enc, dl, 0, int32(len(data)), false)
		} else {
			pg = file.NewDataPageV1(memory.NewBufferBytes(data), int32(n), enc, parquet.Encodings.RLE, parquet.Encodings.RLE, int32(len(data)))
		}
		code := newColumnCoder(false)
		var tp textPages
		tp.reset(&columnPages{}, code, maxDef)
		entries := 0
		for rest, ok := dictData, true; entries < 64; entries++ {
			if _, rest, ok = plainValue(rest); !ok {
				break
			}
		}
		if err := tp.take(file.NewDictionaryPage(memory.NewBufferBytes(dictData), int32(entries), parquet.Encodings.Plain)); err != nil {
			t.Fatalf("dictionary of %d entries: %v", entries, err)
		}
		checked := checkDataPage(pg, maxDef, 0) == nil
		if err := tp.take(pg); err != nil {
			if checked && enc != parquet.Encodings.Plain {
				t.Fatalf("page check passed, decoding failed: %v", err)
			}
			return
		}
		rows := make([]int32, int(n))
		for at := 0; at < len(rows); at += 7 {
			err := tp.rows(rows[at:min(at+7, len(rows))])
			if err != nil {
				// The page check does not compare indices with the
				// dictionary's size; that error is decoding's alone.
				if checked && enc != parquet.Encodings.Plain && errors.Is(err, errHybridEnd) {
					t.Fatalf("page check passed, decoding failed: %v", err)
				}
				return
			}
		}
		for i, c := range rows {
			if c < 0 || int(c) > code.codes() || (c == 0 && maxDef == 0) {
				t.Fatalf("row %d: code %d of %d", i, c, code.codes())
			}
		}
	})
}

// plainBytes lays values out as a PLAIN byte-array stream.
func plainBytes(values ...string) []byte {
	var b bytes.Buffer
	for _, v := range values {
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(v))))
		b.WriteString(v)
	}
	return b.Bytes()
}
