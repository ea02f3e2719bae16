package catalog

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
)

// Server evidence chunks are stored deflated: the page keeps the core shard
// decoded in memory, and readers need one chunk at a time. Each chunk is
// compressed on its own so a reader inflates only the one it needs.

func deflate(b []byte) string {
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.DefaultCompression)
	w.Write(b)
	w.Close()
	return out.String()
}

// maxChunkBytes bounds one inflated chunk.
const maxChunkBytes = 64 << 20

func inflate(s string) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader([]byte(s)))
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxChunkBytes+1))
	if err != nil {
		return nil, fmt.Errorf("stored server evidence chunk: %w", err)
	}
	if len(b) > maxChunkBytes {
		return nil, fmt.Errorf("stored server evidence chunk exceeds %d bytes", maxChunkBytes)
	}
	return b, nil
}

// ServerChunk returns server evidence chunk k, inflated.
func (c *Core) ServerChunk(k int) ([]byte, error) { return inflate(c.ServerChunks[k]) }
