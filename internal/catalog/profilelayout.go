package catalog

import (
	"sync"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// CompressedChunk is one detail shard of a profile's ranges, encoded and
// compressed with shard.Compress, with the descriptor fields a writer
// copies. RawBytes is the encoded shard's length.
type CompressedChunk struct {
	Gz                             []byte
	RawBytes                       int
	Rows                           int
	MinStartNS, MaxStartNS, MaxEnd int64
}

// chunksInFlight bounds, per worker, the chunks laid out ahead of the one
// emit waits for: enough to keep the workers busy while emit writes, few
// enough that the pending shards stay small (a compressed chunk is a few
// KB to ~300 KB).
const chunksInFlight = 4

// CompressProfileChunks lays p's ranges out as ProfileChunks does and
// compresses each shard, on up to workers goroutines, and calls emit with
// each chunk in chunk order on the caller's goroutine: the bytes are the
// same as shard.Compress of ProfileChunks' payloads whatever the worker
// count. Each worker reuses its columns and encode buffer from chunk to
// chunk, so a profile of ten million ranges allocates its compressed
// shards and little else. The first error (a layout's or emit's) stops
// the layout and is returned.
func CompressProfileChunks(p *model.Profile, origin int64, workers int, emit func(k int, c CompressedChunk) error) error {
	n := (len(p.Ranges) + ProfileChunkRows - 1) / ProfileChunkRows
	if n == 0 {
		return nil
	}
	workers = max(1, min(workers, n))
	if workers == 1 {
		var w chunkWorker
		for k := range n {
			c, err := w.layout(p, origin, k)
			if err != nil {
				return err
			}
			if err := emit(k, c); err != nil {
				return err
			}
		}
		return nil
	}
	type result struct {
		c   CompressedChunk
		err error
	}
	// done[k] delivers chunk k. Indexes are handed out in order once emit
	// has taken chunk k-window, which bounds what is held at once.
	done := make([]chan result, n)
	for k := range done {
		done[k] = make(chan result, 1)
	}
	window := workers * chunksInFlight
	jobs := make(chan int)
	free := make(chan struct{}, window)
	for range window {
		free <- struct{}{}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	go func() {
		defer close(jobs)
		for k := range n {
			select {
			case <-free:
			case <-stop:
				return
			}
			select {
			case jobs <- k:
			case <-stop:
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w chunkWorker
			for k := range jobs {
				c, err := w.layout(p, origin, k)
				done[k] <- result{c, err}
			}
		}()
	}
	var err error
	for k := range n {
		r := <-done[k]
		if err = r.err; err == nil {
			err = emit(k, r.c)
		}
		if err != nil {
			break
		}
		free <- struct{}{}
	}
	close(stop)
	wg.Wait()
	return err
}

// chunkWorker lays out and compresses chunks one after another with the
// same buffers.
type chunkWorker struct {
	cols nvtxColumns
	raw  []byte
}

func (w *chunkWorker) layout(p *model.Profile, origin int64, k int) (CompressedChunk, error) {
	cp, err := w.cols.encode(p, origin, k, w.raw[:0])
	if err != nil {
		return CompressedChunk{}, err
	}
	w.raw = cp.Raw
	gz, err := shard.Compress(cp.Raw)
	if err != nil {
		return CompressedChunk{}, err
	}
	return CompressedChunk{Gz: gz, RawBytes: len(cp.Raw), Rows: cp.Rows, MinStartNS: cp.MinStartNS, MaxStartNS: cp.MaxStartNS, MaxEnd: cp.MaxEnd}, nil
}
