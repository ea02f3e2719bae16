package tachometer

import (
	"fmt"
	"sync"
)

// batchesInFlight is how many batches a read cycles through: one being
// read, one decoded and waiting, one being decoded.
const batchesInFlight = 3

// prefetcher decodes a source's next batch on its own goroutine while the
// caller reads the current one, so that decoding and reading rows use two
// cores. Batches are recycled: the caller hands each back by asking for the
// next, and the decoder refills it.
type prefetcher struct {
	out  chan fetched
	free chan *batch
	done chan struct{}
	wg   sync.WaitGroup
	cur  *batch // handed out by the last next, recycled by the following
}

type fetched struct {
	b   *batch
	err error
}

// prefetch starts decoding src. The caller must call stop before closing
// src.
func prefetch(src batchSource) *prefetcher {
	p := &prefetcher{out: make(chan fetched, 1), free: make(chan *batch, batchesInFlight), done: make(chan struct{})}
	for range batchesInFlight {
		p.free <- new(batch)
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.out)
		for {
			var b *batch
			select {
			case b = <-p.free:
			case <-p.done:
				return
			}
			err := decodeNext(src, b)
			select {
			case p.out <- fetched{b, err}:
			case <-p.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// decodePanic is a decoder panic (corrupt input) turned into an error.
type decodePanic struct{ value any }

func (d *decodePanic) Error() string { return fmt.Sprintf("corrupt capture file: %v", d.value) }

// decodeNext reports a decoder panic as a *decodePanic.
func decodeNext(src batchSource, b *batch) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &decodePanic{p}
		}
	}()
	return src.next(b)
}

// next returns the next batch, or the source's error (io.EOF at the end).
// The batch is valid until the next call to next or stop.
func (p *prefetcher) next() (*batch, error) {
	if p.cur != nil {
		p.free <- p.cur // never blocks: free holds every batch
		p.cur = nil
	}
	f, ok := <-p.out
	if !ok {
		return nil, fmt.Errorf("batch prefetch ended early")
	}
	p.cur = f.b
	return f.b, f.err
}

// stop ends decoding and waits for the decoding goroutine to return.
func (p *prefetcher) stop() {
	close(p.done)
	p.wg.Wait()
	p.cur = nil
}
