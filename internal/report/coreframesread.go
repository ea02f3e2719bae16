package report

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// readFramedTables decodes the head and the tables keep accepts of a
// framed shard, reading only the parts that hold their frames. Each frame
// read is checked against its id and each part read against its own
// (readPartsFor: a part within one frame by that frame's hash), so a
// damaged frame is refused by every question that reads it; the frames
// not read are neither trusted nor checked; the shard's checksum, which
// covers them, is checked when every table is read. The frames are
// decoded where they lie (a frame stored as is is a slice of the parts),
// never joined into one raw copy.
func readFramedTables(dir string, sh model.Shard, keep func(table string) bool) (*shard.Shard, error) {
	return readFramedColumns(dir, sh, keep, nil)
}

// readFramedColumns is readFramedTables decoding none of the columns skip
// names (nil: every column of every table read).
func readFramedColumns(dir string, sh model.Shard, keep func(table string) bool, skip shard.SkipColumn) (*shard.Shard, error) {
	s, _, err := readFramedPicking(dir, sh, keep, skip, nil)
	return s, err
}

// readFramedPicking is readFramedColumns keeping, of the tables pick names,
// only the rows it matches (nil: every row); kept maps such a table to the
// rows kept (shard.DecodeTableFramesPicking).
func readFramedPicking(dir string, sh model.Shard, keep func(table string) bool, skip shard.SkipColumn, pick shard.PickRows) (*shard.Shard, map[string][]int, error) {
	return readFramedHeld(dir, sh, keep, skip, pick, nil)
}

// readFramedHeld is readFramedPicking taking the frames held has (by
// payload offset: read, checked and inflated by an earlier read of the
// same descriptor) from there instead of the parts, and adding the ones
// it reads (held nil: none kept).
func readFramedHeld(dir string, sh model.Shard, keep func(table string) bool, skip shard.SkipColumn, pick shard.PickRows, held map[int][]byte) (*shard.Shard, map[string][]int, error) {
	frames, err := checkFrames(sh)
	if err != nil {
		// Frames that do not fit their descriptor: read every part, so
		// that a part holding another payload is named as before.
		if _, perr := readShard(dir, sh); perr != nil {
			return nil, nil, perr
		}
		return nil, nil, err
	}
	var wanted []frameAt
	for _, f := range frames[:len(frames)-1] {
		if f.Table == "" || keep(f.Table) {
			wanted = append(wanted, f)
		}
	}
	// Every table: the trailer too, and the whole is checked below.
	whole := len(wanted) == len(frames)-1
	if whole {
		wanted = frames
	}
	toRead := wanted
	if len(held) > 0 {
		toRead = nil
		for _, f := range wanted {
			if held[f.start] == nil {
				toRead = append(toRead, f)
			}
		}
	}
	var payload sparsePayload
	if len(toRead) > 0 {
		if payload, err = readPartsFor(dir, sh, toRead); err != nil {
			return nil, nil, err
		}
	}
	// Every table read: the payload is one run, and its hash is not
	// taken again. The frames tile the payload (checkFrames) and each is
	// checked against its own id below, so every byte is checked once; the
	// whole payload's hash was a second pass over all of them, and the
	// shard's checksum (shard.CheckFrames) still covers the joined frames.
	if whole && len(toRead) == len(wanted) && len(payload) != 1 {
		return nil, nil, fmt.Errorf("framed shard: its parts read as %d runs, not one", len(payload))
	}
	var zr shard.FrameInflater
	open := func(f frameAt) ([]byte, error) {
		if b := held[f.start]; b != nil {
			return b, nil
		}
		b, err := openFrame(&zr, f.ShardFrame, payload.slice(f))
		if err != nil {
			return nil, payload.nameDamage(dir, sh, f, err)
		}
		if held != nil {
			held[f.start] = b
		}
		return b, nil
	}
	head, err := open(wanted[0])
	if err != nil {
		return nil, nil, err
	}
	kind, n, err := shard.DecodeHead(head)
	if err != nil {
		return nil, nil, err
	}
	if n != len(frames)-2 {
		return nil, nil, fmt.Errorf("%w: the head counts %d tables, the manifest frames %d", shard.ErrCorrupt, n, len(frames)-2)
	}
	raws := make([][]byte, 0, len(wanted))
	raws = append(raws, head)
	for _, f := range wanted[1:] {
		b, err := open(f)
		if err != nil {
			return nil, nil, err
		}
		raws = append(raws, b)
	}
	if whole {
		if err := shard.CheckFrames(raws); err != nil {
			return nil, nil, err
		}
		raws = raws[:len(raws)-1]
	}
	var tables []shard.Table
	var kept map[string][]int
	if pick == nil {
		tables, err = shard.DecodeTableFramesSkipping(raws[1:], sh.DecodedBytes, skip)
	} else {
		var rows [][]int
		tables, rows, err = shard.DecodeTableFramesPicking(raws[1:], sh.DecodedBytes, skip, pick)
		kept = map[string][]int{}
		for i, r := range rows {
			if r != nil {
				kept[tables[i].Name] = r
			}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	for i, t := range tables {
		if t.Name != wanted[i+1].Table {
			return nil, nil, fmt.Errorf("%w: the frame of table %q holds table %q", shard.ErrCorrupt, wanted[i+1].Table, t.Name)
		}
	}
	return &shard.Shard{Kind: kind, Tables: tables}, kept, nil
}

// sparsePayload holds some runs of a payload's consecutive parts.
type sparsePayload []payloadRun

type payloadRun struct {
	start int
	b     []byte
}

// slice is a frame's stored bytes; readPartsFor read every part it spans.
func (p sparsePayload) slice(f frameAt) []byte {
	for _, r := range p {
		if f.start >= r.start && f.start+f.Bytes <= r.start+len(r.b) {
			return r.b[f.start-r.start : f.start-r.start+f.Bytes]
		}
	}
	return nil // unreachable: openFrame refuses nil by its hash
}

// readPartsFor reads, checks and decodes in place the parts that hold the
// frames, consecutive parts into one buffer. A part that lies wholly
// within one of the frames is not hashed here: the caller checks that
// frame's hash (openFrame), which covers every byte of the part, so
// hashing both spent two SHA-256 passes on the same bytes (a third of a
// 100,000-request question's CPU went to hashing). Such a part's script
// must still name the id the manifest gives it; the other parts, which
// hold bytes of frames not read, are hashed as before.
func readPartsFor(dir string, sh model.Shard, frames []frameAt) (sparsePayload, error) {
	if len(sh.Parts) == 0 {
		return nil, errNoParts
	}
	total := 0
	need := make([]bool, len(sh.Parts))
	starts := make([]int, len(sh.Parts))
	for i, p := range sh.Parts {
		if p.Bytes < 0 || p.Bytes > PartBytes {
			return nil, fmt.Errorf("part %s declares %d bytes, outside 0..%d", p.Path, p.Bytes, PartBytes)
		}
		if p.Pack {
			return nil, fmt.Errorf("framed shard: part %d is packed", i)
		}
		starts[i] = total
		total += p.Bytes
		for _, f := range frames {
			if f.start < total && f.start+f.Bytes > starts[i] {
				need[i] = true
			}
		}
	}
	if total != sh.Bytes {
		return nil, fmt.Errorf("parts declare %d bytes, the shard %d", total, sh.Bytes)
	}
	var out sparsePayload
	var script []byte
	for i := 0; i < len(sh.Parts); i++ {
		if !need[i] {
			continue
		}
		j, size := i, 0
		for ; j < len(sh.Parts) && need[j]; j++ {
			size += sh.Parts[j].Bytes
		}
		run := payloadRun{start: starts[i], b: make([]byte, 0, size)}
		for _, p := range sh.Parts[i:j] {
			file, err := partFile(dir, p)
			if err != nil {
				return nil, err
			}
			// Every part's script is read into the same buffer: it is
			// decoded into the run at once, and a fresh megabyte per part
			// was a third of the reading.
			script, err = readBoundedInto(script[:0], file, int64(shard.PartLen(p.Bytes)))
			if err != nil {
				return nil, err
			}
			at := len(run.b)
			open := shard.AppendOpenPart
			if withinOne(frames, at+starts[i], p.Bytes) {
				open = shard.AppendOpenPartCovered
			}
			id, grown, err := open(run.b, script)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if id != p.ID {
				return nil, fmt.Errorf("%s: content hash mismatch: it holds part %s, manifest expects %s", file, id, p.ID)
			}
			if len(grown)-at != p.Bytes {
				return nil, fmt.Errorf("%s holds %d bytes, manifest declares %d", file, len(grown)-at, p.Bytes)
			}
			run.b = grown
		}
		out = append(out, run)
		i = j - 1
	}
	return out, nil
}

// readBoundedInto reads a regular file (never a symlink, FIFO or device)
// of at most limit bytes, into buf's spare capacity when it suffices. The
// buffer is sized from the stat, so a multi-megabyte core is read at once
// instead of in io.ReadAll's doublings (a third of a CLI question's
// start-up).
func readBoundedInto(buf []byte, file string, limit int64) ([]byte, error) {
	st, err := os.Lstat(file)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); refusing to read it", file, st.Mode().Type())
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d the manifest declares", file, st.Size(), limit)
	}
	f, err := os.OpenFile(file, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if int64(cap(buf)) < st.Size()+bytes.MinRead {
		buf = make([]byte, 0, st.Size()+bytes.MinRead)
	}
	b := bytes.NewBuffer(buf[:0])
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > limit {
		return nil, fmt.Errorf("%s grew past the %d bytes the manifest declares", file, limit)
	}
	return b.Bytes(), nil
}

// withinOne says whether the payload bytes [start, start+n) lie wholly
// within one of the frames.
func withinOne(frames []frameAt, start, n int) bool {
	for _, f := range frames {
		if f.start <= start && start+n <= f.start+f.Bytes {
			return true
		}
	}
	return false
}

// nameDamage is err, a frame refused, naming the part file whose payload
// is not the one its id names when such a part lies within the frame
// (readPartsFor left those parts to the frame's hash): a damaged file is
// named as when every part was hashed.
func (p sparsePayload) nameDamage(dir string, sh model.Shard, f frameAt, err error) error {
	at := 0
	for _, part := range sh.Parts {
		start := at
		at += part.Bytes
		if start < f.start || at > f.start+f.Bytes {
			continue
		}
		for _, r := range p {
			if start >= r.start && at <= r.start+len(r.b) {
				if id := shard.ID(r.b[start-r.start : at-r.start]); id != part.ID {
					file, _ := partFile(dir, part)
					return fmt.Errorf("%s: content hash mismatch: it holds part %s, manifest expects %s", file, id, part.ID)
				}
			}
		}
	}
	return err
}
