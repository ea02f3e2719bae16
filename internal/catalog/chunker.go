package catalog

import (
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// EvidenceChunks encodes request evidence as it is finished, one chunk of
// EvidencePerChunk requests at a time, so that a build taking the join in
// passes holds the deflated chunks (tens of bytes a span) instead of the
// records: a record is kept only until its chunk is encoded, which happens
// on another goroutine once the chunk's last record is added (at most one
// chunk per core in flight), so the caller goes on finishing the next
// requests meanwhile. A record must not change once added.
// The shard it gives is the one EncodeEvidence gives for the same records
// in the same order.
type EvidenceChunks struct {
	// SpillDir, when set, is where the finished chunks are kept on disk
	// (evidenceSpill; the system temp dir when empty). Hold, when set,
	// keeps them in memory instead.
	SpillDir string
	Hold     bool

	// pending are the records of the chunk being filled.
	pending []*model.RequestEvidence
	chunks  []chunk
	n       int
	// deflate lays out and deflates each finished chunk while the next
	// is encoded.
	deflate chunkDeflater
	done    bool
	// bindings indexes the records' worker bindings for the core's
	// worker_bindings table, which Encode takes from Dataset.Evidence.
	bindings bindingIndex
	// roles are the distinct (worker, role) pairs the records name, in
	// first-seen order, for readers that need no more of the evidence.
	roles    []model.WorkerRole
	roleSeen map[model.WorkerRole]bool
}

// Add takes r as the next request with evidence and returns its index
// (what model.RequestServer.Evidence holds); r is encoded with its chunk.
func (e *EvidenceChunks) Add(r *model.RequestEvidence) int {
	if e.done {
		panic("catalog: EvidenceChunks.Add after Shard")
	}
	if e.n == 0 && !e.Hold && e.deflate.spill == nil {
		e.deflate.spill = newEvidenceSpill(e.SpillDir)
	}
	if e.pending == nil {
		e.pending = make([]*model.RequestEvidence, 0, EvidencePerChunk)
	}
	e.pending = append(e.pending, r)
	e.bindings.add(r.Bindings)
	r.WorkerRoles(func(wr model.WorkerRole) {
		if !e.roleSeen[wr] {
			if e.roleSeen == nil {
				e.roleSeen = map[model.WorkerRole]bool{}
			}
			e.roleSeen[wr] = true
			e.roles = append(e.roles, wr)
		}
	})
	if len(e.pending) == EvidencePerChunk {
		e.flush()
	}
	e.n++
	return e.n - 1
}

// Then runs f once every record added so far is encoded, and no writer
// reads it again: on the goroutine that encoded the last of them, or at
// once when they are all encoded. A caller whose records are views of a
// buffer gives the buffer back in f, rather than allocating one for each
// bucket of spans it reads. Every f has run when Stream or Shard returns.
func (e *EvidenceChunks) Then(f func()) {
	last := len(e.deflate.slots) - 1
	if len(e.pending) > 0 {
		last++ // the chunk being filled, flushed as the next slot
	}
	if last < 0 {
		f()
		return
	}
	e.deflate.released.then(last, f)
}

// Len is the number of requests added.
func (e *EvidenceChunks) Len() int { return e.n }

func (e *EvidenceChunks) flush() {
	if len(e.pending) == 0 {
		return
	}
	e.deflate.add(e.pending) // encoded and deflated on another core
	e.pending = nil
}

// Shard finishes the last chunk and returns the evidence shard; nil when
// no request was added. Nothing may be added after it: a request's chunk
// is its index / EvidencePerChunk.
//
// Spilled chunks are read back into the shard: a build that streams its
// evidence takes it piece by piece from Stream instead.
func (e *EvidenceChunks) Shard() (*shard.Shard, error) {
	e.finish()
	if e.n == 0 {
		return nil, nil
	}
	// A chunk kept on disk that cannot be read back is the disk failing
	// under the build: an error naming it, not a crash.
	return wholeShard(e.chunks, e.deflate.spill)
}

// finish deflates the last chunk and waits for every chunk.
func (e *EvidenceChunks) finish() {
	e.flush()
	if !e.done {
		e.chunks = e.deflate.wait()
	}
	e.done = true
}

// wholeShard is the evidence shard of chunks, every payload read back.
func wholeShard(chunks []chunk, spill *evidenceSpill) (*shard.Shard, error) {
	held := make([]chunk, len(chunks))
	for k, ch := range chunks {
		p, err := spill.payload(ch)
		if err != nil {
			return nil, err
		}
		held[k] = chunk{deflated: p, size: ch.size}
	}
	return &shard.Shard{Kind: EvidenceKind, Tables: []shard.Table{chunkTable(TableServerChunks, held)}}, nil
}
