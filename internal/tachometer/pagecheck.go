package tachometer

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
)

// Arrow's column reader loops until it has read the values a page header
// declares; when a damaged page's level or dictionary-index stream ends
// early, each round decodes nothing and the loop never ends (a corrupted
// final.parquet hung the build in the RLE decoder). Before a data page is
// handed over, its streams are counted here, bounding the work per page by
// what the page holds: a page whose streams hold fewer values than its
// header declares is an error.

// checkDataPage verifies that a data page's definition levels and, for a
// dictionary-encoded page, its indices cover the values the header declares.
func checkDataPage(pg file.Page, maxDef, maxRep int16) error {
	n := int(pg.NumValues())
	if n < 0 {
		return fmt.Errorf("data page declares %d values", n)
	}
	data := pg.Data()
	var defs []byte
	switch p := pg.(type) {
	case *file.DataPageV1:
		if maxRep > 0 {
			if p.RepetitionLevelEncoding() != parquet.Encodings.RLE {
				return nil // the deprecated BIT_PACKED levels are left to the reader
			}
			var err error
			if _, data, err = lengthPrefixed(data, "repetition levels"); err != nil {
				return err
			}
		}
		if maxDef > 0 {
			if p.DefinitionLevelEncoding() != parquet.Encodings.RLE {
				return nil
			}
			var err error
			if defs, data, err = lengthPrefixed(data, "definition levels"); err != nil {
				return err
			}
		}
	case *file.DataPageV2:
		rl, dl := int(p.RepetitionLevelByteLen()), int(p.DefinitionLevelByteLen())
		if rl < 0 || dl < 0 || rl+dl > len(data) {
			return fmt.Errorf("data page levels of %d+%d bytes exceed its %d bytes", rl, dl, len(data))
		}
		defs, data = data[rl:rl+dl], data[rl+dl:]
		if maxDef == 0 {
			defs = nil
		}
	default:
		return nil
	}
	present := n
	if maxDef > 0 {
		levels, full, err := countRLE(defs, bits.Len16(uint16(maxDef)), n, int64(maxDef))
		if err != nil {
			return fmt.Errorf("definition levels: %w", err)
		}
		if levels < n {
			return fmt.Errorf("data page declares %d values, its definition levels hold %d", n, levels)
		}
		present = full
	}
	if enc := parquet.Encoding(pg.Encoding()); enc == parquet.Encodings.RLEDict || enc == parquet.Encodings.PlainDict {
		if present == 0 {
			return nil
		}
		if len(data) == 0 {
			return fmt.Errorf("data page declares %d dictionary indices and holds none", present)
		}
		width := int(data[0])
		if width > 32 {
			return fmt.Errorf("dictionary index bit width %d", width)
		}
		got, _, err := countRLE(data[1:], width, present, -1)
		if err != nil {
			return fmt.Errorf("dictionary indices: %w", err)
		}
		if got < present {
			return fmt.Errorf("data page declares %d dictionary indices, it holds %d", present, got)
		}
	}
	return nil
}

func lengthPrefixed(data []byte, what string) (body, rest []byte, err error) {
	if len(data) < 4 {
		return nil, nil, fmt.Errorf("%s: truncated length", what)
	}
	n := binary.LittleEndian.Uint32(data)
	if uint64(n) > uint64(len(data)-4) {
		return nil, nil, fmt.Errorf("%s: %d bytes declared, %d present", what, n, len(data)-4)
	}
	return data[4 : 4+n], data[4+n:], nil
}

// countRLE counts the values of an RLE/bit-packed hybrid stream of the
// given bit width, stopping once want are counted, and how many of the
// first want equal match (match < 0 counts none). Its work is bounded by
// the stream's length.
func countRLE(b []byte, width, want int, match int64) (count, matched int, err error) {
	byteWidth := (width + 7) / 8
	for count < want && len(b) > 0 {
		h, k := binary.Uvarint(b)
		if k <= 0 {
			return count, matched, fmt.Errorf("bad run header")
		}
		b = b[k:]
		if h&1 == 1 { // bit-packed: groups of 8 values
			groups := h >> 1
			if groups == 0 || groups > uint64(len(b)) {
				break // the reader stops here too
			}
			nbytes := groups * uint64(width)
			if nbytes > uint64(len(b)) {
				// A short last group still yields whole values.
				groups = uint64(len(b)) / uint64(max(width, 1))
				nbytes = groups * uint64(width)
			}
			vals := int(groups * 8)
			if width == 0 {
				vals = int(min(groups*8, uint64(want-count)))
			}
			for i := 0; i < vals && count < want; i++ {
				if match >= 0 && unpack(b, i, width) == uint64(match) {
					matched++
				}
				count++
			}
			b = b[nbytes:]
			continue
		}
		run := h >> 1
		if run == 0 || len(b) < byteWidth {
			break
		}
		var v uint64
		for i := 0; i < byteWidth; i++ {
			v |= uint64(b[i]) << (8 * i)
		}
		b = b[byteWidth:]
		take := int(min(run, uint64(want-count)))
		if match >= 0 && v == uint64(match) {
			matched += take
		}
		count += take
	}
	return count, matched, nil
}

// unpack returns value i of a little-endian bit-packed run.
func unpack(b []byte, i, width int) uint64 {
	var v uint64
	for bit := 0; bit < width; bit++ {
		pos := i*width + bit
		if pos/8 < len(b) && b[pos/8]&(1<<(pos%8)) != 0 {
			v |= 1 << bit
		}
	}
	return v
}
