package pyramid

import "sync"

// chunkBuffers are the columns of one full exact chunk with evidence and no
// limit, kept for the next builder. A capture summarizes thousands of series
// one after another, each into fresh chunks dropped once it is encoded:
// allocating and zeroing them, and collecting them again, cost more than
// filling them.
type chunkBuffers struct {
	times     []int64
	values    []float64
	valid     []bool
	src, line []int64
}

var chunkPool sync.Pool // of *chunkBuffers

// reuseChunk starts the chunk being filled in recycled buffers of at least n
// rows, if there are any; it reports whether it did. A series' last chunk
// holds fewer rows than a full one, and so do a short series' only chunks:
// they take a full chunk's buffers too (a chunk is full at exactRows rows,
// whatever its capacity), and recycled buffers too small for n are dropped.
func (b *Builder) reuseChunk(n int) bool {
	if n > b.exactRows || b.limit != nil || !b.evidence {
		return false
	}
	cb, _ := chunkPool.Get().(*chunkBuffers)
	if cb == nil || cap(cb.times) < n {
		return false
	}
	c := &b.cur
	c.times, c.values, c.valid, c.src, c.line = cb.times[:0], cb.values[:0], cb.valid[:0], cb.src[:0], cb.line[:0]
	return true
}

// Recycle hands the memory of p's exact chunks to later builders. p must not
// be used afterwards, nor any slice taken from it (its Tables included); the
// encoded shard, a copy, stays valid.
func (p *Pyramid) Recycle() {
	for i := range p.exact {
		c := &p.exact[i]
		n := cap(c.times)
		if c.limitOK != nil || c.src == nil || n == 0 || cap(c.values) != n || cap(c.valid) != n || cap(c.src) != n || cap(c.line) != n {
			continue
		}
		chunkPool.Put(&chunkBuffers{times: c.times, values: c.values, valid: c.valid, src: c.src, line: c.line})
	}
	*p = Pyramid{}
}
