package importer

import (
	"sync/atomic"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/spanspill"
)

// spillBuffers recycles the read buffers of a pass over the span spill
// whose use of a bucket's spans ends with the bucket (the check pass and
// the join's route pass): a read takes a buffer a finished bucket gave
// back, so a pass allocates for the few buckets in flight (inOrder reads
// at most ahead+1 at once) rather than for every bucket it reads, which
// was most of the bytes a traced build allocated and the collector's work.
// The finish pass has its own (finishBuffers): its spans are held by the
// evidence records until their chunk is encoded, across buckets.
type spillBuffers chan *spanspill.ReadBuffer

func newSpillBuffers() spillBuffers { return make(spillBuffers, readAhead()+2) }

func (p spillBuffers) get() *spanspill.ReadBuffer {
	select {
	case b := <-p:
		return b
	default:
		return &spanspill.ReadBuffer{}
	}
}

// put gives b back once nothing holds its spans or their strings.
func (p spillBuffers) put(b *spanspill.ReadBuffer) {
	select {
	case p <- b:
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

// finishBuffers recycles the finish pass's buffers, when recycle is set:
// a range's buffer comes back once the evidence chunks holding its
// records are encoded, so the pass holds the few ranges in flight (read
// ahead, finishing, in the chunks being encoded), not a buffer per range.
type finishBuffers struct {
	free    chan *finishBuffer
	recycle bool
}

// finishBuffersMade counts the finish buffers made since the process
// started, for tests: a pass that recycles makes a few, one that does not
// a buffer per range.
var finishBuffersMade atomic.Int64

// The pool keeps at most readAhead()+2 buffers idle: the buffers in use
// (read ahead, finishing, held by the chunks being encoded) were live
// before the pool too, and the idle ones are what it adds to the heap, a
// few MB each at 100k requests and ~25 MB at a million (20,000 spans a
// range), so it keeps few.
func newFinishBuffers(recycle bool) finishBuffers {
	return finishBuffers{free: make(chan *finishBuffer, readAhead()+2), recycle: recycle}
}

func (p finishBuffers) get() *finishBuffer {
	select {
	case b := <-p.free:
		return b
	default:
		finishBuffersMade.Add(1)
		return &finishBuffer{}
	}
}

// put gives b back once nothing holds its spans or their strings.
func (p finishBuffers) put(b *finishBuffer) {
	if !p.recycle {
		return
	}
	select {
	case p.free <- b:
	default:
	}
}

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
