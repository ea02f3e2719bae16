package importer

import "github.com/dsight/dsight/internal/spanspill"

// spillBuffers recycles the read buffers of a pass over the span spill
// whose use of a bucket's spans ends with the bucket (the check pass and
// the join's route pass): a read takes a buffer a finished bucket gave
// back, so a pass allocates for the few buckets in flight (inOrder reads
// at most ahead+1 at once) rather than for every bucket it reads, which
// was most of the bytes a traced build allocated and the collector's work.
// The finish pass does not use it: the evidence writer keeps strings of a
// chunk's spans until the chunk is laid out, across buckets.
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
