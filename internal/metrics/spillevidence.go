package metrics

import "encoding/binary"

// Each spilled pair is followed by its evidence: the capture file it was
// read from and its row there, so that every summarized row keeps them
// (pyramid Options.Evidence). A series is read file after file, row after
// row, so both are encoded against the previous pair's: the change in the
// file as a zigzag varint, then the row's distance from the next row as a
// zigzag varint (0 for consecutive rows of one file). A pair from the same
// file as the previous one, as many rows after it as that one was after its
// own predecessor (the row stride), writes no evidence at all: its XOR header
// carries spillSameStride instead. A series read from a file sorted by
// series and time (final.parquet) has one stride, the number of series
// interleaved under its name, so it costs no evidence bytes but where the
// file or the stride changes; before, two bytes a pair, about half the
// spill.

// maxSpillEvidence is the longest encoded evidence.
const maxSpillEvidence = 2 * binary.MaxVarintLen64

// spillSameStride marks, in a pair's XOR header, evidence that continues the
// previous pair's stride. XOR headers are at most 64, so the top bit is free.
const spillSameStride = 0x80

// evidenceCodec is the previous pair's evidence and the row stride that led
// to it, less one (so 1 before the first pair).
type evidenceCodec struct {
	src, row, gap int64
}

func (c *evidenceCodec) append(dst []byte, src int32, row int64) []byte {
	dst = binary.AppendUvarint(dst, zigzag(int64(src)-c.src))
	dst = binary.AppendUvarint(dst, zigzag(row-c.row-1))
	c.src, c.row, c.gap = int64(src), row, row-c.row-1
	return dst
}

// sameStride reports whether (src, row) continues the stride, and if so
// takes it as the previous pair's evidence: the pair is then written marked
// and without evidence.
func (c *evidenceCodec) sameStride(src int32, row int64) bool {
	if int64(src) != c.src || row-c.row-1 != c.gap {
		return false
	}
	c.row = row
	return true
}

// nextInStride decodes the evidence of a marked pair.
func (c *evidenceCodec) nextInStride() (src, row int64) {
	c.row += c.gap + 1
	return c.src, c.row
}

// next decodes one pair's evidence, or returns used 0 when src ends inside
// it.
func (c *evidenceCodec) next(b []byte) (src, row int64, used int) {
	ds, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, 0
	}
	dr, m := binary.Uvarint(b[n:])
	if m <= 0 {
		return 0, 0, 0
	}
	c.src += unzigzag(ds)
	c.gap = unzigzag(dr)
	c.row += c.gap + 1
	return c.src, c.row, n + m
}

// byTimeWithEvidence sorts one series' pairs and their evidence by time,
// stably.
type byTimeWithEvidence struct {
	byTime
	src, row []int64
}

func (b byTimeWithEvidence) Swap(i, j int) {
	b.byTime.Swap(i, j)
	b.src[i], b.src[j] = b.src[j], b.src[i]
	b.row[i], b.row[j] = b.row[j], b.row[i]
}
