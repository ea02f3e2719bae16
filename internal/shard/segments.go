//go:build !js

package shard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/flate"
)

// A segmented gzip member (docs/format/shard.md, "Segmented gzip") is one
// gzip member like Compress writes, whose deflate stream is cut at the raw
// shard's frames (FrameSpans: the head, each table, the trailer): each
// frame is deflated by a fresh compressor and ends on a byte boundary (a
// sync flush), so it inflates alone, and the header's extra field lists
// each frame's deflated and raw length. Any gzip reader (the page's
// DecompressionStream, Decompress) inflates the member whole, as before; a
// reader of some tables (dsight query metrics) inflates only their frames.

// segmentsID is the extra field's subfield id ("ds").
var segmentsID = [2]byte{'d', 's'}

// maxSegmentExtra bounds the subfield: XLEN is 16 bits and holds the
// subfield's own 4-byte header.
const maxSegmentExtra = 1<<16 - 1 - 4

// Segment is one frame of a segmented member: Stored deflated bytes at
// Offset in the member, Raw bytes once inflated.
type Segment struct {
	Offset, Stored, Raw int
}

// SegmentedFrom is the raw size from which CompressSummary segments a
// metric summary: a 100,000-request in-flight series (2.75 MB raw, 36
// frames) is 1,120,458 bytes segmented against 1,129,136 in one stream,
// and a question of a 5 s window inflates 15 % of it; a small summary
// (most of a capture's thousands) is read whole anyway and keeps
// Compress's bytes.
const SegmentedFrom = 256 << 10

// CompressSummary gzips a metric summary's raw shard: segmented
// (CompressSegmented) from SegmentedFrom bytes, else as Compress does;
// both at summaryLevel.
func CompressSummary(raw []byte) ([]byte, error) {
	if len(raw) < SegmentedFrom {
		return summaryWriters.compress(raw)
	}
	return CompressSegmented(raw)
}

// CompressSegmented gzips a raw shard as a segmented member: at
// CompressSummary's level, deterministic, and a reader of the whole member
// gets raw back. A shard whose frames the extra field cannot list is
// refused.
func CompressSegmented(raw []byte) ([]byte, error) {
	spans, err := FrameSpans(raw)
	if err != nil {
		return nil, fmt.Errorf("compress shard: %w", err)
	}
	var deflated bytes.Buffer
	deflated.Grow(len(raw)/2 + 64)
	zw, err := flate.NewWriter(&deflated, summaryLevel)
	if err != nil {
		return nil, fmt.Errorf("compress shard: %w", err)
	}
	extra := binary.AppendUvarint(nil, uint64(len(spans)))
	for k, s := range spans {
		start := deflated.Len()
		zw.Reset(&deflated) // a fresh dictionary: the frame inflates alone
		// A single Write per frame, as Compress: the bytes may depend on
		// how the input is split.
		if _, err := zw.Write(raw[s.Start:s.End]); err != nil {
			return nil, fmt.Errorf("compress shard: %w", err)
		}
		if k == len(spans)-1 {
			err = zw.Close()
		} else {
			err = zw.Flush()
		}
		if err != nil {
			return nil, fmt.Errorf("compress shard: %w", err)
		}
		extra = binary.AppendUvarint(extra, uint64(deflated.Len()-start))
		extra = binary.AppendUvarint(extra, uint64(s.End-s.Start))
	}
	if len(extra) > maxSegmentExtra {
		return nil, fmt.Errorf("compress shard: %d frames do not fit a gzip extra field", len(spans))
	}
	out := make([]byte, 0, 10+2+4+len(extra)+deflated.Len()+8)
	// ID1 ID2 CM=deflate FLG=FEXTRA MTIME=0 XFL=0 OS=unknown, as Compress
	// writes them but for the flag.
	out = append(out, 0x1f, 0x8b, 8, 0x04, 0, 0, 0, 0, 0, 255)
	out = binary.LittleEndian.AppendUint16(out, uint16(4+len(extra)))
	out = append(out, segmentsID[0], segmentsID[1])
	out = binary.LittleEndian.AppendUint16(out, uint16(len(extra)))
	out = append(out, extra...)
	out = append(out, deflated.Bytes()...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(raw))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(raw)))
	return out, nil
}

// Segments reads a gzip member's segment list: ok is false for a member
// that is not segmented (Compress's), which a reader inflates whole. The
// segments must tile the member's deflate stream exactly.
func Segments(gz []byte) (segs []Segment, ok bool, err error) {
	if len(gz) < 12 || gz[0] != 0x1f || gz[1] != 0x8b || gz[3]&0x04 == 0 {
		return nil, false, nil
	}
	if gz[2] != 8 || gz[3] != 0x04 {
		return nil, false, fmt.Errorf("%w: a gzip member with flags %#x carries an extra field this reader does not write", ErrCorrupt, gz[3])
	}
	xlen := int(binary.LittleEndian.Uint16(gz[10:12]))
	body := 12 + xlen
	if len(gz) < body+8 || xlen < 4 || gz[12] != segmentsID[0] || gz[13] != segmentsID[1] ||
		int(binary.LittleEndian.Uint16(gz[14:16])) != xlen-4 {
		return nil, false, fmt.Errorf("%w: a gzip extra field that is not a segment list", ErrCorrupt)
	}
	extra := gz[16:body]
	n, k := binary.Uvarint(extra)
	if k <= 0 || n < 2 || n > uint64(len(extra)) {
		return nil, false, fmt.Errorf("%w: segment count", ErrCorrupt)
	}
	extra = extra[k:]
	segs = make([]Segment, 0, n)
	at, raw := body, 0
	for range n {
		stored, k1 := binary.Uvarint(extra)
		if k1 <= 0 {
			return nil, false, fmt.Errorf("%w: segment list", ErrCorrupt)
		}
		size, k2 := binary.Uvarint(extra[k1:])
		if k2 <= 0 || stored > uint64(len(gz)) || size > maxRawBytes {
			return nil, false, fmt.Errorf("%w: segment list", ErrCorrupt)
		}
		extra = extra[k1+k2:]
		segs = append(segs, Segment{Offset: at, Stored: int(stored), Raw: int(size)})
		at += int(stored)
		raw += int(size)
		if at > len(gz)-8 || raw > maxRawBytes {
			return nil, false, fmt.Errorf("%w: segments run past the member", ErrCorrupt)
		}
	}
	if len(extra) != 0 || at != len(gz)-8 || uint32(raw) != binary.LittleEndian.Uint32(gz[len(gz)-4:]) {
		return nil, false, fmt.Errorf("%w: segments do not tile the member", ErrCorrupt)
	}
	return segs, true, nil
}

// InflateSegment inflates segment s of the member gz alone: its Raw bytes,
// or an error when it holds fewer, more, or not a deflate stream. The
// member's CRC covers every segment and is checked only by a whole read:
// the caller checks the member's bytes (the report: its SHA-256).
func InflateSegment(gz []byte, s Segment) ([]byte, error) {
	if s.Offset < 0 || s.Stored < 0 || s.Offset+s.Stored > len(gz) {
		return nil, fmt.Errorf("%w: segment outside the member", ErrCorrupt)
	}
	zr := flate.NewReader(bytes.NewReader(gz[s.Offset : s.Offset+s.Stored]))
	defer zr.Close()
	out := make([]byte, s.Raw)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("%w: segment at %d: %v", ErrCorrupt, s.Offset, err)
	}
	// A segment ends with its frame: a sync flush (no further block) or,
	// the last, the final block.
	var one [1]byte
	if n, err := zr.Read(one[:]); n != 0 || err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%w: segment at %d holds more than its %d bytes", ErrCorrupt, s.Offset, s.Raw)
	}
	return out, nil
}
