package shard

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// A framed shard is a raw shard cut at its table boundaries into frames
// (docs/format/shard.md, "Framed shards"): the head (magic, version, kind,
// table count), one frame per table, and the 4-byte checksum trailer. The
// report writer compresses and hashes each frame on its own, so a reader
// that needs some tables reads, checks and inflates only their frames; the
// frames joined in order are the raw shard, byte for byte, which the page
// decodes whole as before.

// FrameSpan is one frame of a raw shard: bytes [Start, End) of it. Table is
// the table's name, empty for the head and the trailer.
type FrameSpan struct {
	Table      string
	Start, End int
}

// FrameSpans cuts raw at its table boundaries: the head, each table in
// order, the trailer. It checks raw as Decode does (magic, version,
// checksum, every header, count and length) without decoding any values.
func FrameSpans(raw []byte) ([]FrameSpan, error) {
	if err := checkFrame(raw); err != nil {
		return nil, err
	}
	body := raw[:len(raw)-trailerBytes]
	d := decoder{r: reader{b: body, off: headerFixedBytes}, budget: DecodeBudget(len(raw))}
	if _, err := d.name("kind"); err != nil {
		return nil, err
	}
	n, err := d.count("table count", maxTables, minTableBytes)
	if err != nil {
		return nil, err
	}
	spans := make([]FrameSpan, 0, n+2)
	spans = append(spans, FrameSpan{Start: 0, End: d.r.off})
	seen := make(map[string]bool, n)
	for i := range n {
		start := d.r.off
		name, err := d.peekTableName(i, seen)
		if err != nil {
			return nil, err
		}
		if err := d.skipTable(); err != nil {
			return nil, err
		}
		spans = append(spans, FrameSpan{Table: name, Start: start, End: d.r.off})
	}
	d.where = ""
	if d.r.remaining() != 0 {
		return nil, d.fail("%d trailing bytes after the last table", d.r.remaining())
	}
	return append(spans, FrameSpan{Start: len(body), End: len(raw)}), nil
}

// DecodeHead parses a framed shard's head frame: magic, version, kind and
// table count, and nothing after them.
func DecodeHead(head []byte) (kind string, tables int, err error) {
	if len(head) < len(magic) || string(head[:len(magic)]) != magic {
		n := min(len(head), len(magic))
		return "", 0, fmt.Errorf("%w: not a dsight shard (starts with % x)", ErrCorrupt, head[:n])
	}
	if len(head) < headerFixedBytes {
		return "", 0, fmt.Errorf("%w: truncated header (%d bytes)", ErrCorrupt, len(head))
	}
	if v := head[len(magic)]; v == 0 || v > FormatVersion {
		return "", 0, fmt.Errorf("%w %d (this reader reads <= %d)", ErrUnsupportedVersion, v, FormatVersion)
	}
	d := decoder{r: reader{b: head, off: headerFixedBytes}}
	if kind, err = d.name("kind"); err != nil {
		return "", 0, err
	}
	// A table takes at least minTableBytes in its own frame, not here.
	n, err := d.uvarint("table count")
	if err != nil {
		return "", 0, err
	}
	if n > maxTables {
		return "", 0, d.fail("table count %d exceeds the limit of %d", n, maxTables)
	}
	if d.r.remaining() != 0 {
		return "", 0, d.fail("%d bytes after the table count", d.r.remaining())
	}
	return kind, int(n), nil
}

// DecodeTableFrames decodes table frames, each exactly one table's bytes
// as FrameSpans cut them, under the memory budget of their whole shard,
// DecodeBudget(shardBytes) for a raw shard of shardBytes; the names must
// be distinct. The frames' integrity is the caller's (the report checks
// each frame's SHA-256): the shard's checksum covers every frame, and a
// reader of some frames does not hold the others.
func DecodeTableFrames(frames [][]byte, shardBytes int) ([]Table, error) {
	return decodeTableFrames(frames, DecodeBudget(shardBytes))
}

func decodeTableFrames(frames [][]byte, budget int64) ([]Table, error) {
	return decodeTableFramesSkipping(frames, budget, nil)
}

func decodeTableFramesSkipping(frames [][]byte, budget int64, skip SkipColumn) ([]Table, error) {
	tables := make([]Table, len(frames))
	seen := make(map[string]bool, len(frames))
	var decoded int64
	for i, b := range frames {
		if len(b) > maxRawBytes {
			return nil, fmt.Errorf("%w: table frame %d: %d bytes exceeds the limit of %d", ErrCorrupt, i, len(b), maxRawBytes)
		}
		d := decoder{r: reader{b: b}, decoded: decoded, budget: budget, where: fmt.Sprintf("table frame %d", i), skip: skip}
		if err := d.table(&tables[i]); err != nil {
			return nil, err
		}
		if d.r.remaining() != 0 {
			return nil, d.fail("%d trailing bytes after the table", d.r.remaining())
		}
		if seen[tables[i].Name] {
			return nil, d.fail("duplicate table name")
		}
		seen[tables[i].Name] = true
		decoded = d.decoded
	}
	return tables, nil
}

// CheckFrames checks the trailer frame against every frame before it, in
// order: a reader holding all of a shard's frames checks its checksum as
// Decode would.
func CheckFrames(frames [][]byte) error {
	if len(frames) < 2 {
		return fmt.Errorf("%w: %d frames, a shard has a head and a trailer", ErrCorrupt, len(frames))
	}
	trailer := frames[len(frames)-1]
	if len(trailer) != trailerBytes {
		return fmt.Errorf("%w: trailer frame of %d bytes, not %d", ErrCorrupt, len(trailer), trailerBytes)
	}
	var sum uint32
	for _, f := range frames[:len(frames)-1] {
		sum = crc32.Update(sum, castagnoli, f)
	}
	if stored := binary.LittleEndian.Uint32(trailer); stored != sum {
		return fmt.Errorf("%w: checksum mismatch (stored %08x, computed %08x)", ErrCorrupt, stored, sum)
	}
	return nil
}
