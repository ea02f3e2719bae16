package shard

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// DecodeTables is Decode for a reader that needs only some tables: it
// checks the same magic, version, checksum, lengths and limits, and walks
// every table's column headers, but decodes the values only of the tables
// keep accepts; the others are left out of the result. A one-shot reader
// (dsight query) so skips the decoding a question does not use: the core's
// request tables are most of its bytes, and a metrics question reads none.
func DecodeTables(raw []byte, keep func(table string) bool) (*Shard, error) {
	return decodeTables(raw, keep, nil)
}

func decodeTables(raw []byte, keep func(table string) bool, skip SkipColumn) (*Shard, error) {
	if keep == nil && skip == nil {
		return Decode(raw)
	}
	if keep == nil {
		keep = func(string) bool { return true }
	}
	if err := checkFrame(raw); err != nil {
		return nil, err
	}
	body := raw[:len(raw)-trailerBytes]
	d := decoder{r: reader{b: body, off: headerFixedBytes}, budget: DecodeBudget(len(raw)), skip: skip}
	kind, err := d.name("kind")
	if err != nil {
		return nil, err
	}
	n, err := d.count("table count", maxTables, minTableBytes)
	if err != nil {
		return nil, err
	}
	s := &Shard{Kind: kind}
	seen := make(map[string]bool, n)
	for i := range n {
		name, err := d.peekTableName(i, seen)
		if err != nil {
			return nil, err
		}
		if keep(name) {
			var t Table
			if err := d.table(&t); err != nil {
				return nil, err
			}
			s.Tables = append(s.Tables, t)
		} else if err := d.skipTable(); err != nil {
			return nil, err
		}
	}
	d.where = ""
	if d.r.remaining() != 0 {
		return nil, d.fail("%d trailing bytes after the last table", d.r.remaining())
	}
	return s, nil
}

// checkFrame is Decode's check of the bytes around the tables: size,
// magic, version and checksum.
func checkFrame(raw []byte) error { return checkFrameSum(raw, true) }

// checkFrameSum is checkFrame, computing the checksum only with sum set
// (DecodeNamed: the bytes' SHA-256 was checked instead).
func checkFrameSum(raw []byte, sum bool) error {
	if len(raw) > maxRawBytes {
		return fmt.Errorf("%w: %d bytes exceeds the limit of %d", ErrCorrupt, len(raw), maxRawBytes)
	}
	if len(raw) < len(magic) || string(raw[:len(magic)]) != magic {
		n := min(len(raw), len(magic))
		return fmt.Errorf("%w: not a dsight shard (starts with % x)", ErrCorrupt, raw[:n])
	}
	if len(raw) > len(magic) {
		if v := raw[len(magic)]; v == 0 || v > FormatVersion {
			return fmt.Errorf("%w %d (this reader reads <= %d)", ErrUnsupportedVersion, v, FormatVersion)
		}
	}
	if len(raw) < headerFixedBytes+trailerBytes {
		return fmt.Errorf("%w: truncated header (%d bytes)", ErrCorrupt, len(raw))
	}
	if !sum {
		return nil
	}
	body := raw[:len(raw)-trailerBytes]
	stored := binary.LittleEndian.Uint32(raw[len(body):])
	if sum := crc32.Checksum(body, castagnoli); sum != stored {
		return fmt.Errorf("%w: checksum mismatch (stored %08x, computed %08x)", ErrCorrupt, stored, sum)
	}
	return nil
}

// skipTable walks one table's header and column headers, checking their
// names, counts, types and encodings as table does, and steps over each
// column's payload by its length without decoding it.
func (d *decoder) skipTable() error {
	name, err := d.name("table name")
	if err != nil {
		return err
	}
	d.where = fmt.Sprintf("table %q", name)
	rows, err := d.uvarint("row count")
	if err != nil {
		return err
	}
	if rows > maxRows {
		return d.fail("%d rows exceeds the limit of %d", rows, maxRows)
	}
	n, err := d.count("column count", maxColumns, minColumnBytes)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, n)
	for range n {
		col, err := d.name("column name")
		if err != nil {
			return err
		}
		if seen[col] {
			return d.fail("duplicate column name")
		}
		seen[col] = true
		if err := d.skipColumn(); err != nil {
			return err
		}
	}
	return nil
}

// peekTableName reads table i's name without moving past it, refusing a
// name an earlier table of the shard had (seen collects them).
func (d *decoder) peekTableName(i int, seen map[string]bool) (string, error) {
	d.where = fmt.Sprintf("table %d", i)
	start := d.r.off
	name, err := d.name("table name")
	if err != nil {
		return "", err
	}
	if seen[name] {
		return "", d.fail("duplicate table name")
	}
	seen[name] = true
	d.r.off = start
	return name, nil
}
