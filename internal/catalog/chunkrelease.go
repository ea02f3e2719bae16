package catalog

import "sync"

// chunkReleases runs what waits for the records of the chunks encoded so
// far (EvidenceChunks.Then): chunks are encoded on several goroutines and
// finish in any order, so a wait for chunk c ends once every chunk up to
// c is encoded, which is when no writer reads a record up to it again.
type chunkReleases struct {
	mu      sync.Mutex
	encoded []bool // by chunk
	next    int    // the first chunk not yet encoded, all before it are
	waiting []chunkWait
}

type chunkWait struct {
	chunk int
	f     func()
}

// then runs f once chunks 0..c are encoded (at once if they are).
func (r *chunkReleases) then(c int, f func()) {
	r.mu.Lock()
	if c < r.next {
		r.mu.Unlock()
		f()
		return
	}
	r.waiting = append(r.waiting, chunkWait{c, f})
	r.mu.Unlock()
}

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
	var run []func()
	keep := r.waiting[:0]
	for _, w := range r.waiting {
		if w.chunk < r.next {
			run = append(run, w.f)
		} else {
			keep = append(keep, w)
		}
	}
	clear(r.waiting[len(keep):])
	r.waiting = keep
	r.mu.Unlock()
	for _, f := range run {
		f()
	}
}
