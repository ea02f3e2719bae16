// Package watermark runs functions once a level (a count of things done)
// reaches the mark each waits for. A build's writers hand records to
// readers on other goroutines and say with it when no reader reads a
// record any more, so that the buffers the records are views of may be
// reused: the evidence chunks' encoders (catalog.EvidenceChunks.Then) and
// the store's evidence rows (sqlstore.EvidenceRows.Then).
package watermark

import "sync"

// Waiters holds the functions waiting for the level to reach their mark.
// The zero value is at level 0, with nothing waiting. Its methods may be
// called from any goroutine.
type Waiters struct {
	mu      sync.Mutex
	level   int
	all     bool // finished: every mark is reached, now and to come
	waiting []wait
}

type wait struct {
	mark int
	f    func()
}

// Then runs f once the level reaches mark: at once, on this goroutine, if
// it has; else on the goroutine that raises it there.
func (w *Waiters) Then(mark int, f func()) {
	w.mu.Lock()
	if w.all || w.level >= mark {
		w.mu.Unlock()
		f()
		return
	}
	w.waiting = append(w.waiting, wait{mark, f})
	w.mu.Unlock()
}

// Raise sets the level to level, if that is higher, and runs what then
// waits no more, in the order it was registered.
func (w *Waiters) Raise(level int) {
	w.mu.Lock()
	w.level = max(w.level, level)
	w.runLocked()
}

// Add raises the level by n.
func (w *Waiters) Add(n int) {
	w.mu.Lock()
	w.level += n
	w.runLocked()
}

// Level is the level reached.
func (w *Waiters) Level() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.level
}

// Finish runs every waiting function, and any registered later at once:
// every mark counts as reached (the readers ended, or failed and drained).
func (w *Waiters) Finish() {
	w.mu.Lock()
	w.all = true
	w.runLocked()
}

// runLocked runs, after unlocking w, the functions whose marks are
// reached.
func (w *Waiters) runLocked() {
	var run []func()
	keep := w.waiting[:0]
	for _, x := range w.waiting {
		if w.all || x.mark <= w.level {
			run = append(run, x.f)
		} else {
			keep = append(keep, x)
		}
	}
	clear(w.waiting[len(keep):])
	w.waiting = keep
	w.mu.Unlock()
	for _, f := range run {
		f()
	}
}
