package report

import "github.com/dsight/dsight/internal/model"

// bootRecordEntry is the entry as the page's boot record holds it, which
// the page parses before its first paint: the manifest's, but that a
// traced report's evidence is given as bootEvidence (its Evidence hides
// the Entry's in JSON).
type bootRecordEntry struct {
	Entry
	Evidence *bootEvidence `json:"evidence,omitempty"`
}

// bootEvidence is a traced report's evidence in the boot record. The parts
// of the whole evidence (format 4's one shard) are its shards' parts again,
// in order; the page reads them only when the evidence has no shards, and
// on 100,000 traced requests they were 300 KB of the boot record
// (docs/measurements.md, issue 17), so they are left out. The shards are a
// table (shardTable) when each is one packed part stored as is, as every
// shard a writer of format 9 makes below PackBytes: their descriptors, in
// the list, were 555 KB of it at 100,000 traced requests, mostly ids and
// pack paths written twice and three times. manifest.json keeps both.
type bootEvidence struct {
	model.Shard
	Shards []EvidencePiece `json:"shards,omitempty"`
	Table  *shardTable     `json:"shard_table,omitempty"`
}

// shardTable lists evidence shards in chunk order, column by column. Shard
// k is named ID[k] and holds Chunks[k] chunks from the sum of those before
// it, in Bytes[k] bytes stored as is (its one part, named as the shard, in
// the pack script Paths[Path[k]]).
type shardTable struct {
	Paths  []string `json:"paths"`
	ID     []string `json:"id"`
	Bytes  []int    `json:"bytes"`
	Path   []int    `json:"path"`
	Chunks []int    `json:"chunks"`
}

// bootEntry is e as the boot record holds it.
func bootEntry(e Entry) bootRecordEntry {
	ev := e.Evidence
	e.Evidence = nil
	out := bootRecordEntry{Entry: e}
	if ev == nil {
		return out
	}
	b := &bootEvidence{Shard: ev.Shard, Shards: ev.Shards}
	if len(ev.Shards) > 0 {
		b.Parts = nil
		if t, ok := tableOf(ev.Shards); ok {
			b.Shards, b.Table = nil, t
		}
	}
	out.Evidence = b
	return out
}

// tableOf is shards as a shardTable, or false when one does not fit it.
func tableOf(shards []EvidencePiece) (*shardTable, bool) {
	t := &shardTable{}
	index := map[string]int{}
	next := 0
	for _, s := range shards {
		if len(s.Parts) != 1 || len(s.Frames) > 0 {
			return nil, false
		}
		p := s.Parts[0]
		if !p.Pack || p.ID != s.ID || p.Bytes != s.Bytes || s.DecodedBytes != s.Bytes || s.Encoding != EncodingIdentity || s.FirstChunk != next || s.Chunks < 1 {
			return nil, false
		}
		next += s.Chunks
		k, seen := index[p.Path]
		if !seen {
			k = len(t.Paths)
			index[p.Path] = k
			t.Paths = append(t.Paths, p.Path)
		}
		t.ID, t.Bytes, t.Path, t.Chunks = append(t.ID, s.ID), append(t.Bytes, s.Bytes), append(t.Path, k), append(t.Chunks, s.Chunks)
	}
	return t, true
}
