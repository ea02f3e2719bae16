package sqlstore

import "sync"

// releases runs the functions EvidenceRows.Then registers once the
// records handed over before each was registered are no longer read. The
// request rows' goroutine, the last of the rows' goroutines to read a
// record, counts those it is done with.
type releases struct {
	mu      sync.Mutex
	done    int       // the first done records are read no more
	waiting []release // in ascending mark order (Then is called in order)
	all     bool      // every record is done with, now and to come
}

type release struct {
	mark int // f runs once the first mark records are done with
	f    func()
}

// then runs f once the first mark records are done with: at once when
// they are.
func (r *releases) then(mark int, f func()) {
	r.mu.Lock()
	if r.all || r.done >= mark {
		r.mu.Unlock()
		f()
		return
	}
	r.waiting = append(r.waiting, release{mark, f})
	r.mu.Unlock()
}

// add counts the next n records done with and runs what they release.
func (r *releases) add(n int) {
	r.mu.Lock()
	r.done += n
	k := 0
	for k < len(r.waiting) && r.waiting[k].mark <= r.done {
		k++
	}
	ready := r.waiting[:k:k]
	r.waiting = r.waiting[k:]
	r.mu.Unlock()
	for _, w := range ready {
		w.f()
	}
}

// finish runs every waiting function, and any registered later at once:
// no record is read any more (the rows ended, or failed and drained).
func (r *releases) finish() {
	r.mu.Lock()
	r.all = true
	ready := r.waiting
	r.waiting = nil
	r.mu.Unlock()
	for _, w := range ready {
		w.f()
	}
}
