package catalog

import (
	"sync"

	"github.com/dsight/dsight/internal/watermark"
)

// chunkReleases runs what waits for the records of the chunks encoded so
// far (EvidenceChunks.Then): chunks are encoded on several goroutines and
// finish in any order, so a wait for chunk c ends once every chunk up to
// c is encoded, which is when no writer reads a record up to it again.
// The level of its waiters is the number of chunks encoded in a row from
// the first.
type chunkReleases struct {
	mu      sync.Mutex
	encoded []bool // by chunk
	next    int    // the first chunk not yet encoded, all before it are
	waiters watermark.Waiters
}

// then runs f once chunks 0..c are encoded (at once if they are).
func (r *chunkReleases) then(c int, f func()) { r.waiters.Then(c+1, f) }

// done notes chunk c encoded and runs what no longer waits, in the order
// it was asked for.
func (r *chunkReleases) done(c int) {
	r.mu.Lock()
	for len(r.encoded) <= c {
		r.encoded = append(r.encoded, false)
	}
	r.encoded[c] = true
	for r.next < len(r.encoded) && r.encoded[r.next] {
		r.next++
	}
	next := r.next
	r.mu.Unlock()
	r.waiters.Raise(next)
}
