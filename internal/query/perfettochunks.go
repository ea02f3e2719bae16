package query

import "github.com/dsight/dsight/internal/catalog"

// chunkFeed hands the Perfetto export the server evidence chunks it reads,
// decoded one chunk ahead on another goroutine in the order the export
// first needs them: inflating the chunks is a quarter of an export's work
// and needs nothing but the stored bytes, so a second core does it while
// the first draws the requests. Requests in time order read their chunks
// nearly in order, so the last chunks fed stay at hand; one needed again
// after those is read through the engine's chunk cache.
type chunkFeed struct {
	e     *Engine
	order []int // chunk ids, in the order the export first reads them
	next  int   // position in order of the next chunk fed
	fed   chan fedChunk
	done  chan struct{}

	// recent are the last chunks fed (ids in recentID), oldest first.
	recent   []*catalog.EvidenceChunk
	recentID []int
}

// feedRecent is how many fed chunks stay at hand: requests in time order
// come back only to the last few.
const feedRecent = 8

type fedChunk struct {
	c   *catalog.EvidenceChunk
	err error
}

// feedChunks starts feeding the chunks holding the lifecycles of the
// requests, in request order; stop ends it.
func (e *Engine) feedChunks() *chunkFeed {
	f := &chunkFeed{e: e, fed: make(chan fedChunk, 1), done: make(chan struct{})}
	seen := make([]bool, len(e.c.ServerChunks))
	for i := range e.r.N {
		sk := e.serverRow[i]
		if sk < 0 || e.c.Server.LifecycleAvailable[sk] != 1 {
			continue
		}
		if k := int(e.c.Server.Chunk[sk]); k >= 0 && k < len(seen) && !seen[k] {
			seen[k] = true
			f.order = append(f.order, k)
		}
	}
	go f.run(f.order)
	return f
}

func (f *chunkFeed) run(order []int) {
	for _, k := range order {
		raw, err := f.e.c.ServerChunk(k)
		var c *catalog.EvidenceChunk
		if err == nil {
			c, err = catalog.DecodeEvidenceChunk(raw)
		}
		select {
		case f.fed <- fedChunk{c, err}:
		case <-f.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// chunk returns decoded chunk k.
func (f *chunkFeed) chunk(k int) (*catalog.EvidenceChunk, error) {
	for n, id := range f.recentID {
		if id == k {
			return f.recent[n], nil
		}
	}
	if f.next < len(f.order) && f.order[f.next] == k {
		got := <-f.fed
		f.next++
		if got.err != nil {
			f.next = len(f.order) // the feed has stopped
			return nil, got.err
		}
		if len(f.recent) == feedRecent {
			f.recent, f.recentID = f.recent[1:], f.recentID[1:]
		}
		f.recent, f.recentID = append(f.recent, got.c), append(f.recentID, k)
		return got.c, nil
	}
	e := f.e
	e.chunkMu.Lock()
	defer e.chunkMu.Unlock()
	return e.chunks.chunk(k, e.c.ServerChunk)
}

// stop ends the feed; the goroutine returns once its chunk in hand is
// decoded.
func (f *chunkFeed) stop() { close(f.done) }
