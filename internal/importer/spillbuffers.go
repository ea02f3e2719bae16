package importer

import (
	"sync/atomic"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/spanspill"
)

// buffers recycles the read buffers of a pass over the span spill: a read
// takes a buffer a finished bucket gave back, so a pass allocates for the
// few buckets in flight (inOrder reads at most ahead+1 at once) rather
// than for every bucket it reads, which was most of the bytes a traced
// build allocated and the collector's work. The check pass and the join's
// route pass give a bucket's buffer back with the bucket; the finish pass
// (finishBuffer) once the evidence chunks holding its records are encoded
// and a tap, if any, is done with them, or never (recycle unset) when a
// tap may hold them as long as it likes.
//
// The pool keeps at most readAhead()+2 buffers idle: the buffers in use
// were live before the pool too, and the idle ones are what it adds to
// the heap, a few MB each at 100k requests and ~25 MB at a million (20,000
// spans a range), so it keeps few.
type buffers[T any] struct {
	free    chan *T
	recycle bool
	made    *atomic.Int64 // counts the buffers get makes, when set
}

func newBuffers[T any](recycle bool, made *atomic.Int64) buffers[T] {
	return buffers[T]{free: make(chan *T, readAhead()+2), recycle: recycle, made: made}
}

// newSpillBuffers is the pool of the check and route passes.
func newSpillBuffers() buffers[spanspill.ReadBuffer] {
	return newBuffers[spanspill.ReadBuffer](true, nil)
}

// newFinishBuffers is the finish pass's pool.
func newFinishBuffers(recycle bool) buffers[finishBuffer] {
	return newBuffers[finishBuffer](recycle, &finishBuffersMade)
}

func (p buffers[T]) get() *T {
	select {
	case b := <-p.free:
		return b
	default:
		if p.made != nil {
			p.made.Add(1)
		}
		return new(T)
	}
}

// put gives b back once nothing holds its spans or their strings.
func (p buffers[T]) put(b *T) {
	if !p.recycle {
		return
	}
	select {
	case p.free <- b:
	default:
	}
}

// finishBuffer is what the join's finish pass reads a range into: its
// spans, and the joined spans and owners handed to Stream.FinishOwned.
type finishBuffer struct {
	read   spanspill.ReadBuffer
	spans  []model.JoinedSpan
	owners []int
}

// finishBuffersMade counts the finish buffers made since the process
// started, for tests: a pass that recycles makes a few, one that does not
// a buffer per range.
var finishBuffersMade atomic.Int64

// grow returns s with n items, reallocated only when it is too small.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// onSecondCall returns a function that runs f the second time it is
// called, from whichever goroutine: a buffer two readers hold goes back
// when both are done with it.
func onSecondCall(f func()) func() {
	var calls atomic.Int32
	return func() {
		if calls.Add(1) == 2 {
			f()
		}
	}
}
