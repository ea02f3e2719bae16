package tachometer

import (
	"fmt"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
)

// prefetcher decodes a source's next record on its own goroutine while the
// caller processes the current one, so that decoding and reading rows use
// two cores. One record is held beyond the one being processed: the next,
// decoded and waiting to be handed over.
type prefetcher struct {
	out  chan fetched
	done chan struct{}
	wg   sync.WaitGroup
	cur  arrow.Record // handed out by the last next, released by the following
}

type fetched struct {
	rec arrow.Record
	err error
}

// prefetch starts decoding src. The caller must call stop before closing
// src.
func prefetch(src recordSource) *prefetcher {
	p := &prefetcher{out: make(chan fetched), done: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.out)
		for {
			rec, err := decodeNext(src)
			if rec != nil {
				// A source's record is valid until its next call; the
				// caller releases it after processing.
				rec.Retain()
			}
			select {
			case p.out <- fetched{rec, err}:
			case <-p.done:
				if rec != nil {
					rec.Release()
				}
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
func decodeNext(src recordSource) (rec arrow.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, &decodePanic{p}
		}
	}()
	return src.next()
}

// next returns the next record, or the source's error (io.EOF at the end).
// The record is valid until the next call to next or stop.
func (p *prefetcher) next() (arrow.Record, error) {
	p.releaseCurrent()
	f, ok := <-p.out
	if !ok {
		return nil, fmt.Errorf("record prefetch ended early")
	}
	p.cur = f.rec
	return f.rec, f.err
}

func (p *prefetcher) releaseCurrent() {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
}

// stop ends decoding and releases every record still held.
func (p *prefetcher) stop() {
	close(p.done)
	p.wg.Wait()
	p.releaseCurrent()
	for f := range p.out {
		if f.rec != nil {
			f.rec.Release()
		}
	}
}
