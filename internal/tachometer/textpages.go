package tachometer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/metadata"
)

// textPages decodes one text column chunk's pages itself, for the column
// coder: the dictionary page once, then each data page's definition levels
// and dictionary indices a run at a time, so a run of one index is coded at
// once. Arrow's column reader materializes a 24-byte ByteArray for every
// row first, which was most of what decoding the text columns cost.
// PLAIN pages (a writer's fallback once the dictionary grows too large) are
// read here too. A chunk using any other encoding is left to Arrow's reader
// (directText).
type textPages struct {
	pages  *columnPages
	code   *columnCoder
	maxDef int16

	dict     [][]byte // the chunk's dictionary entries, into its page
	dictCode []int32  // their codes, 0 until an entry is first read
	hasDict  bool

	// The open data page: left rows, their levels and values.
	left   int
	defs   hybrid
	dense  bool // no definition levels: every row holds a value
	idx    hybrid
	idxErr error  // a bad index stream, reported when a value is read
	plain  []byte // the values of a PLAIN page
	isDict bool
	// The level run being consumed: runLeft rows at level runDef.
	runLeft int
	runDef  uint32
	// The PLAIN value coded last, which consecutive rows often repeat.
	lastPlain []byte
	lastCode  int32
	// The codes of the current read: the first, and whether another
	// differs (note).
	segCode  int32
	segSet   bool
	segMixed bool
}

// directText reports whether a column chunk's encodings are all ones
// textPages decodes: PLAIN and dictionary values, RLE levels. A chunk that
// lists none says nothing of its pages, and is left to Arrow's reader.
func directText(col *metadata.ColumnChunkMetaData) bool {
	if len(col.Encodings()) == 0 {
		return false
	}
	for _, e := range col.Encodings() {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict, parquet.Encodings.RLE:
		default:
			return false
		}
	}
	return true
}

// reset starts a new column chunk, whose pages p has just opened.
func (t *textPages) reset(p *columnPages, code *columnCoder, maxDef int16) {
	t.pages, t.code, t.maxDef = p, code, maxDef
	clear(t.dict)
	t.dict, t.dictCode, t.hasDict = t.dict[:0], t.dictCode[:0], false
	t.left, t.runLeft, t.lastPlain, t.lastCode = 0, 0, nil, 0
}

// read codes the next len(rows) rows into rows; one says they all hold
// code, which identityCoder.identify then packs once for the batch.
func (t *textPages) read(rows []int32) (code int32, one bool, err error) {
	t.segSet, t.segMixed = false, false
	if err := t.fill(rows); err != nil {
		return 0, false, err
	}
	return t.segCode, t.segSet && !t.segMixed, nil
}

// note records that rows were given code.
func (t *textPages) note(code int32) {
	if !t.segSet {
		t.segCode, t.segSet = code, true
	} else if code != t.segCode {
		t.segMixed = true
	}
}

func (t *textPages) fill(rows []int32) error {
	for len(rows) > 0 {
		if t.left == 0 {
			if err := t.nextPage(); err != nil {
				return err
			}
			continue
		}
		m := min(len(rows), t.left)
		if err := t.rows(rows[:m]); err != nil {
			return err
		}
		t.left -= m
		rows = rows[m:]
	}
	return nil
}

// more reports whether the chunk holds rows beyond those read, as Arrow's
// HasNext does at the end of a row group.
func (t *textPages) more() (bool, error) {
	for t.left == 0 {
		if err := t.nextPage(); err != nil {
			if errors.Is(err, errNoPage) {
				return false, nil
			}
			return false, err
		}
	}
	return true, nil
}

var errNoPage = errors.New("has fewer rows than its row group")

// nextPage opens the next data page, decoding a dictionary page on the way.
func (t *textPages) nextPage() error {
	if !t.pages.Next() {
		if err := t.pages.Err(); err != nil {
			return err
		}
		return errNoPage
	}
	return t.take(t.pages.Page())
}

// take starts reading one page of the chunk.
func (t *textPages) take(page file.Page) error {
	switch pg := page.(type) {
	case *file.DictionaryPage:
		return t.dictionary(pg)
	case *file.DataPageV1:
		data := pg.Data()
		var defs []byte
		if t.maxDef > 0 {
			if pg.DefinitionLevelEncoding() != parquet.Encodings.RLE {
				return fmt.Errorf("data page definition levels are %s, which the column chunk does not list", pg.DefinitionLevelEncoding())
			}
			var err error
			if defs, data, err = lengthPrefixed(data, "definition levels"); err != nil {
				return err
			}
		}
		return t.open(pg, defs, data)
	case *file.DataPageV2:
		data := pg.Data()
		rl, dl := int(pg.RepetitionLevelByteLen()), int(pg.DefinitionLevelByteLen())
		if rl < 0 || dl < 0 || rl+dl > len(data) {
			return fmt.Errorf("data page levels of %d+%d bytes exceed its %d bytes", rl, dl, len(data))
		}
		return t.open(pg, data[rl:rl+dl], data[rl+dl:])
	}
	return nil // another page kind holds no rows
}

func (t *textPages) dictionary(pg *file.DictionaryPage) error {
	if t.hasDict {
		return errors.New("column chunk has more than one dictionary page")
	}
	if e := parquet.Encoding(pg.Encoding()); e != parquet.Encodings.Plain && e != parquet.Encodings.PlainDict {
		return fmt.Errorf("dictionary page is %s-encoded", e)
	}
	t.hasDict = true
	data := pg.Data()
	for range pg.NumValues() {
		v, rest, ok := plainValue(data)
		if !ok {
			return fmt.Errorf("dictionary page of %d bytes ends before its %d values", len(pg.Data()), pg.NumValues())
		}
		t.dict, data = append(t.dict, v), rest
	}
	t.dictCode = append(t.dictCode, make([]int32, len(t.dict))...)
	return nil
}

// open starts a data page of levels defs and values data.
func (t *textPages) open(pg file.Page, defs, data []byte) error {
	n := int(pg.NumValues())
	if n < 0 {
		return fmt.Errorf("data page declares %d values", n)
	}
	t.dense = t.maxDef == 0
	if !t.dense {
		t.defs.init(defs, bits.Len16(uint16(t.maxDef)))
	}
	t.runLeft = 0
	switch e := parquet.Encoding(pg.Encoding()); e {
	case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
		if !t.hasDict {
			return errors.New("dictionary-encoded data page without a dictionary page")
		}
		t.isDict = true
		if len(data) == 0 {
			t.idx.init(nil, 0)
			t.idxErr = nil
			break
		}
		t.idxErr = nil
		if data[0] > 32 {
			// An error only if the page holds a value: a page of nulls
			// is read without its indices.
			t.idxErr = fmt.Errorf("dictionary index bit width %d", data[0])
		}
		t.idx.init(data[1:], int(data[0]))
	case parquet.Encodings.Plain:
		// The last value's bytes belong to a page whose memory may now
		// hold this one.
		t.isDict, t.plain, t.lastPlain, t.lastCode = false, data, nil, 0
	default:
		return fmt.Errorf("data page is %s-encoded, which the column chunk does not list", e)
	}
	t.left = n
	return nil
}

// rows codes len(rows) rows of the open page, all of which it holds.
func (t *textPages) rows(rows []int32) error {
	for len(rows) > 0 {
		present := len(rows)
		if !t.dense {
			if t.runLeft == 0 {
				v, n, ok := t.defs.next(t.left)
				if !ok {
					return fmt.Errorf("definition levels: %w", errHybridEnd)
				}
				t.runDef, t.runLeft = v, n
			}
			present = min(present, t.runLeft)
			t.runLeft -= present
			if t.runDef != uint32(t.maxDef) {
				t.note(0)
				clear(rows[:present])
				rows = rows[present:]
				continue
			}
		}
		if err := t.values(rows[:present]); err != nil {
			return err
		}
		rows = rows[present:]
	}
	return nil
}

// values codes rows that all hold a value.
func (t *textPages) values(rows []int32) error {
	if !t.isDict {
		for i := range rows {
			v, rest, ok := plainValue(t.plain)
			if !ok {
				return fmt.Errorf("PLAIN values: %w", errHybridEnd)
			}
			t.plain = rest
			if t.lastCode == 0 || !bytes.Equal(v, t.lastPlain) {
				t.lastPlain, t.lastCode = v, t.code.text(v)
			}
			rows[i] = t.lastCode
			t.note(t.lastCode)
		}
		return nil
	}
	if t.idxErr != nil {
		return t.idxErr
	}
	for len(rows) > 0 {
		ix, n, ok := t.idx.next(len(rows))
		if !ok {
			return fmt.Errorf("dictionary indices: %w", errHybridEnd)
		}
		if int64(ix) >= int64(len(t.dict)) {
			return fmt.Errorf("dictionary index %d beyond the dictionary's %d values", ix, len(t.dict))
		}
		code := t.dictCode[ix]
		if code == 0 {
			code = t.code.text(t.dict[ix])
			t.dictCode[ix] = code
		}
		t.note(code)
		run := rows[:n]
		for i := range run {
			run[i] = code
		}
		rows = rows[n:]
	}
	return nil
}

// plainValue splits one PLAIN byte array (a 4-byte length, then the bytes)
// off b.
func plainValue(b []byte) (v, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}
