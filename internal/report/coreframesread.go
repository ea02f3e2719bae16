package report

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// readFramedTables decodes the head and the tables keep accepts of a
// framed shard, reading only the parts that hold their frames. Each part
// read is checked against its id and each frame against its own, so a
// damaged frame is refused by every question that reads it; the frames
// not read are neither trusted nor checked, and the shard's checksum and
// whole-payload hash, which cover them, are checked only when every frame
// is read.
func readFramedTables(dir string, sh model.Shard, keep func(table string) bool) (*shard.Shard, error) {
	frames, err := checkFrames(sh)
	if err != nil {
		return nil, err
	}
	var wanted []frameAt
	for _, f := range frames[:len(frames)-1] {
		if f.Table == "" || keep(f.Table) {
			wanted = append(wanted, f)
		}
	}
	if len(wanted) == len(frames)-1 { // every table: check the whole
		raw, err := readShard(dir, sh)
		if err != nil {
			return nil, err
		}
		return shard.Decode(raw)
	}
	payload, err := readPartsFor(dir, sh, wanted)
	if err != nil {
		return nil, err
	}
	head, err := openFrame(wanted[0].ShardFrame, payload.slice(wanted[0]))
	if err != nil {
		return nil, err
	}
	kind, n, err := shard.DecodeHead(head)
	if err != nil {
		return nil, err
	}
	if n != len(frames)-2 {
		return nil, fmt.Errorf("%w: the head counts %d tables, the manifest frames %d", shard.ErrCorrupt, n, len(frames)-2)
	}
	raws := make([][]byte, 0, len(wanted)-1)
	for _, f := range wanted[1:] {
		b, err := openFrame(f.ShardFrame, payload.slice(f))
		if err != nil {
			return nil, err
		}
		raws = append(raws, b)
	}
	tables, err := shard.DecodeTableFrames(raws)
	if err != nil {
		return nil, err
	}
	for i, t := range tables {
		if t.Name != wanted[i+1].Table {
			return nil, fmt.Errorf("%w: the frame of table %q holds table %q", shard.ErrCorrupt, wanted[i+1].Table, t.Name)
		}
	}
	return &shard.Shard{Kind: kind, Tables: tables}, nil
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
// frames, consecutive parts into one buffer.
func readPartsFor(dir string, sh model.Shard, frames []frameAt) (sparsePayload, error) {
	if len(sh.Parts) == 0 {
		return nil, errNoParts
	}
	total := 0
	need := make([]bool, len(sh.Parts))
	starts := make([]int, len(sh.Parts))
	for i, p := range sh.Parts {
		if p.Bytes <= 0 || p.Bytes > PartBytes || p.Pack {
			return nil, fmt.Errorf("framed shard: part %d declares %d bytes", i, p.Bytes)
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
			file, script, err := readPart(dir, p)
			if err != nil {
				return nil, err
			}
			at := len(run.b)
			id, grown, err := shard.AppendOpenPart(run.b, script)
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
