package shard

// SkipColumn names the columns a reader leaves undecoded: their headers
// are checked as Decode checks them and their payloads stepped over by
// length, and the decoded table holds only the other columns. A one-shot
// question (dsight query summary) so reads the request table's row count
// and the few columns its engine indexes, not the 100,000 values of every
// column: in a fresh process each decoded value is memory touched for the
// first time, and the page faults were most of the question's time.
type SkipColumn func(table, column string) bool

// DecodeTableFramesSkipping is DecodeTableFrames leaving out the columns
// skip names (nil: every column is decoded).
func DecodeTableFramesSkipping(frames [][]byte, shardBytes int, skip SkipColumn) ([]Table, error) {
	return decodeTableFramesSkipping(frames, DecodeBudget(shardBytes), skip)
}

// DecodeTablesSkipping is DecodeTables leaving out the columns skip names.
func DecodeTablesSkipping(raw []byte, keep func(table string) bool, skip SkipColumn) (*Shard, error) {
	return decodeTables(raw, keep, skip)
}

// skips says whether column name of table t is left undecoded.
func (d *decoder) skips(t *Table, name string) bool {
	return d.skip != nil && d.skip(t.Name, name)
}

// skipColumn checks one column's type, encoding and payload length, as
// column does, and steps over its payload.
func (d *decoder) skipColumn() error {
	header, err := d.r.take(2)
	if err != nil {
		return d.fail("truncated column type and encoding")
	}
	typ, enc := Type(header[0]), Encoding(header[1])
	if !typ.valid() {
		return d.fail("unknown column type %d", header[0])
	}
	if !enc.allows(typ) {
		return d.fail("encoding %s is not defined for %s columns", enc, typ)
	}
	size, err := d.uvarint("column payload length")
	if err != nil {
		return err
	}
	if size == 0 || size > uint64(d.r.remaining()) {
		return d.fail("column payload of %d bytes but only %d remain", size, d.r.remaining())
	}
	d.r.off += int(size)
	return nil
}

// dropSkipped leaves out of t the columns skipped marks.
func dropSkipped(t *Table, skipped []bool) {
	kept := t.Columns[:0]
	for i, c := range t.Columns {
		if !skipped[i] {
			kept = append(kept, c)
		}
	}
	clear(t.Columns[len(kept):])
	t.Columns = kept
}
