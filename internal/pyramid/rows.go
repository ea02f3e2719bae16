package pyramid

import "fmt"

// ExactChunks is the number of exact-row chunks, in time order.
func (p *Pyramid) ExactChunks() int { return len(p.exact) }

// ExactChunk returns chunk k's exact rows: times (ns), values and validity
// (false: a gap row). The slices are the pyramid's own: read, never
// change them. It fails when the chunk is not loaded.
func (p *Pyramid) ExactChunk(k int) (times []int64, values []float64, valid []bool, err error) {
	if k < 0 || k >= len(p.exact) {
		return nil, nil, nil, fmt.Errorf("pyramid: exact chunk %d of %d", k, len(p.exact))
	}
	c := &p.exact[k]
	if !c.loaded {
		return nil, nil, nil, &IncompleteError{Chunks: []int{c.id}}
	}
	return c.times, c.values, c.valid, nil
}
