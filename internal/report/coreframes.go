package report

import (
	"crypto/sha256"
	"fmt"
	"math"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// The core is stored framed (EncodingFrames): each table of the raw shard,
// its head and its trailer compressed and hashed on their own, so that a
// question reads, checks and inflates the frames of the tables it reads
// and no others. One gzip stream over every table made every question pay
// for the request tables (~27 MB allocated and ~150 ms at 100,000
// requests) whatever it asked.

// bigFrame is the stored size from which a frame starts a part of its own
// and ends it: a question that skips the frame then reads none of its
// parts, while the small tables still share parts (each part is a script
// the page loads).
const bigFrame = PartBytes / 8

// addFramedShard stages raw as a framed payload: its frames (FrameSpans),
// each gzip-compressed when that saves at least an eighth, else stored as
// is, cut into parts, a big frame on parts of its own.
func addFramedShard(files *stageFiles, raw []byte) (model.Shard, error) {
	spans, err := shard.FrameSpans(raw)
	if err != nil {
		return model.Shard{}, err
	}
	pw := &partWriter{files: files, limit: math.MaxInt, whole: sha256.New(), decoded: len(raw)}
	frames := make([]model.ShardFrame, 0, len(spans))
	for _, sp := range spans {
		b := raw[sp.Start:sp.End]
		f := model.ShardFrame{Table: sp.Table, DecodedBytes: len(b), Encoding: EncodingIdentity}
		if sp.Table != "" {
			gz, err := shard.Compress(b)
			if err != nil {
				return model.Shard{}, err
			}
			if len(gz) < len(b)-len(b)/8 {
				b, f.Encoding = gz, ""
			}
		}
		f.ID, f.Bytes = shard.ID(b), len(b)
		big := len(b) >= bigFrame
		if big {
			if err := pw.flush(); err != nil {
				return model.Shard{}, err
			}
		}
		if _, err := pw.Write(b); err != nil {
			return model.Shard{}, err
		}
		if big {
			if err := pw.flush(); err != nil {
				return model.Shard{}, err
			}
		}
		frames = append(frames, f)
	}
	if err := pw.flush(); err != nil {
		return model.Shard{}, err
	}
	sh := pw.shard()
	sh.Encoding, sh.Frames = EncodingFrames, frames
	return sh, nil
}

// frameAt is one frame of a framed descriptor with its payload offset.
type frameAt struct {
	model.ShardFrame
	start int
}

// checkFrames checks a framed descriptor's frames against each other and
// the descriptor, before any file is read: a head and a trailer around
// named, distinct tables, known encodings, sizes that add up.
func checkFrames(sh model.Shard) ([]frameAt, error) {
	if len(sh.Frames) < 2 {
		return nil, fmt.Errorf("framed shard lists %d frames, fewer than a head and a trailer", len(sh.Frames))
	}
	out := make([]frameAt, len(sh.Frames))
	seen := map[string]bool{}
	at, decoded := 0, 0
	for i, f := range sh.Frames {
		inner := i > 0 && i < len(sh.Frames)-1
		switch {
		case inner && f.Table == "":
			return nil, fmt.Errorf("framed shard: frame %d names no table", i)
		case !inner && f.Table != "":
			return nil, fmt.Errorf("framed shard: frame %d is the head or trailer but names table %q", i, f.Table)
		case seen[f.Table] && inner:
			return nil, fmt.Errorf("framed shard: table %q is framed twice", f.Table)
		case f.Encoding != "" && f.Encoding != EncodingIdentity:
			return nil, fmt.Errorf("framed shard: frame %d has unknown encoding %q", i, f.Encoding)
		case f.Bytes <= 0 || f.DecodedBytes <= 0 || f.Bytes > sh.Bytes-at || f.DecodedBytes > sh.DecodedBytes-decoded:
			return nil, fmt.Errorf("framed shard: frame %d declares %d bytes (%d decoded) beyond the shard's %d (%d)", i, f.Bytes, f.DecodedBytes, sh.Bytes, sh.DecodedBytes)
		case f.Encoding == EncodingIdentity && f.Bytes != f.DecodedBytes:
			return nil, fmt.Errorf("framed shard: frame %d is stored as is but declares %d bytes, %d decoded", i, f.Bytes, f.DecodedBytes)
		}
		seen[f.Table] = true
		out[i] = frameAt{ShardFrame: f, start: at}
		at += f.Bytes
		decoded += f.DecodedBytes
	}
	if at != sh.Bytes || decoded != sh.DecodedBytes {
		return nil, fmt.Errorf("framed shard: frames add up to %d bytes (%d decoded), the shard declares %d (%d)", at, decoded, sh.Bytes, sh.DecodedBytes)
	}
	return out, nil
}

// openFrame checks a frame's stored bytes against its id and inflates them
// (with zr, reused across a shard's frames).
func openFrame(zr *shard.FrameInflater, f model.ShardFrame, stored []byte) ([]byte, error) {
	if id := shard.ID(stored); id != f.ID {
		what := "the head"
		if f.Table != "" {
			what = fmt.Sprintf("table %q", f.Table)
		}
		return nil, fmt.Errorf("content hash mismatch: the frame of %s is %s, manifest expects %s", what, id, f.ID)
	}
	raw := stored
	if f.Encoding == "" {
		var err error
		if raw, err = zr.Inflate(stored, f.DecodedBytes); err != nil {
			return nil, err
		}
	}
	if len(raw) != f.DecodedBytes {
		return nil, fmt.Errorf("frame of table %q decoded %d bytes, manifest expects %d", f.Table, len(raw), f.DecodedBytes)
	}
	return raw, nil
}

// joinFrames is the raw shard of a whole framed payload: every frame
// checked, inflated and joined in order.
func joinFrames(sh model.Shard, payload []byte) ([]byte, error) {
	frames, err := checkFrames(sh)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 0, sh.DecodedBytes)
	var zr shard.FrameInflater
	for _, f := range frames {
		b, err := openFrame(&zr, f.ShardFrame, payload[f.start:f.start+f.Bytes])
		if err != nil {
			return nil, err
		}
		raw = append(raw, b...)
	}
	return raw, nil
}
