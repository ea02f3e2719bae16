package catalog

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	kflate "github.com/klauspost/compress/flate"
)

// Server evidence chunks are stored deflated: the page keeps the core shard
// decoded in memory, and readers need one chunk at a time. Each chunk is
// compressed on its own so a reader inflates only the one it needs.

// deflateAll compresses every chunk, in parallel: at 100k traced requests
// this is a few hundred MB, the largest single step of writing the core.
// The standard library inflates the result in the engine.
func deflateAll(chunks [][]byte) []string {
	out := make([]string, len(chunks))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			w, _ := kflate.NewWriter(&buf, kflate.DefaultCompression)
			for k := range next {
				buf.Reset()
				w.Reset(&buf)
				w.Write(chunks[k])
				w.Close()
				out[k] = buf.String()
			}
		}()
	}
	for k := range chunks {
		next <- k
	}
	close(next)
	wg.Wait()
	return out
}

// maxChunkBytes bounds one inflated chunk.
const maxChunkBytes = 64 << 20

// inflate reads a chunk of the recorded inflated size into one buffer of
// exactly that size: the engine does this on the first question about any
// request of the chunk, so it must not grow a buffer as it reads.
func inflate(s string, size int64) ([]byte, error) {
	if size < 0 || size > maxChunkBytes {
		return nil, fmt.Errorf("stored server evidence chunk: size %d outside 0..%d", size, maxChunkBytes)
	}
	r := flate.NewReader(strings.NewReader(s))
	defer r.Close()
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("stored server evidence chunk: %w", err)
	}
	var extra [1]byte
	if n, err := r.Read(extra[:]); n != 0 || err != io.EOF {
		return nil, fmt.Errorf("stored server evidence chunk: longer than its recorded %d bytes", size)
	}
	return b, nil
}

// ServerChunk returns server evidence chunk k, inflated.
func (c *Core) ServerChunk(k int) ([]byte, error) {
	return inflate(c.ServerChunks[k], c.ServerChunkBytes[k])
}
