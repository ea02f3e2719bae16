package catalog

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Server evidence chunks are stored deflated: the page keeps the core shard
// decoded in memory, and readers need one chunk at a time. Each chunk is
// compressed on its own so a reader inflates only the one it needs.

// EvidencePerChunk is how many records (requests, or server spans) share
// one evidence chunk: enough that they share their strings (paths, names,
// attribute keys), few enough that a request's first answer inflates
// little. The page's first answer about a request inflates its chunk, and
// at 64 requests (~130 KB inflated) that was its largest single step
// (~1.5 ms of ~8 ms for selectRequest with its render). At 32 the report's
// evidence is 7.6 % larger (the page's evidence step ~65 ms longer at
// 100,000 traced requests) and the engine's request answer ~0.7 ms
// shorter; at 16 the evidence grew 13.8 % for no further gain measured
// (docs/measurements.md, issue 17).
const EvidencePerChunk = 32

// chunk is one encoded evidence chunk, deflated, with its inflated size.
type chunk struct {
	deflated string
	size     int64
	// spilled says the deflated bytes are in the build's evidenceSpill
	// (stored bytes at offset at), not in deflated.
	spilled    bool
	at, stored int64
	// big is the chunk's span with the most attribute bytes (bigBytes),
	// found only for a chunk over MaxChunkBytes, to name in its refusal.
	big      *model.Span
	bigBytes int
}

// encodeChunks encodes n records, EvidencePerChunk to a chunk, and
// deflates each chunk, on every core: at 100k traced requests this is a few
// hundred MB, the largest single step of writing a report. Chunks are
// independent, so the result is the same in any schedule. The standard
// library inflates them in the engine.
func encodeChunks(n int, add func(w *EvidenceWriter, k int)) []chunk {
	out := make([]chunk, (n+EvidencePerChunk-1)/EvidencePerChunk)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			fw := newDeflater(&buf)
			for c := range next {
				w := NewEvidenceWriter()
				for k := c * EvidencePerChunk; k < min(n, (c+1)*EvidencePerChunk); k++ {
					add(w, k)
				}
				raw := w.Bytes()
				buf.Reset()
				fw.Reset(&buf)
				fw.Write(raw)
				fw.Close()
				out[c] = chunk{deflated: buf.String(), size: int64(len(raw))}
			}
		}()
	}
	for c := range out {
		next <- c
	}
	close(next)
	wg.Wait()
	return out
}

// chunkTable stores chunks as a table of payloads and inflated sizes.
func chunkTable(name string, chunks []chunk) shard.Table {
	n := len(chunks)
	return shard.Table{Name: name, Rows: n, Columns: []shard.Column{
		strCol("payload", n, func(k int) string { return chunks[k].deflated }),
		intCol("bytes", n, func(k int) int64 { return chunks[k].size }),
	}}
}

// MaxChunkBytes bounds one inflated evidence chunk. Every reader (the CLI,
// the engine in the page) refuses a larger chunk, so the writer checks its
// chunks against the same bound (ChunkOverLimit) and refuses to publish a
// report its own readers would refuse.
const MaxChunkBytes = 64 << 20

// maxChunkBytes is MaxChunkBytes where it is enforced on read.
const maxChunkBytes = MaxChunkBytes

// ChunkOverLimit returns the table and index of the first evidence chunk of
// s (a core or evidence shard) whose inflated size exceeds MaxChunkBytes,
// with that size; ok is false when every chunk is within the bound.
func ChunkOverLimit(s *shard.Shard) (table string, k int, size int64, ok bool) {
	for _, name := range []string{TableServerChunks, TableSpanChunks} {
		t, found := s.Table(name)
		if !found {
			continue
		}
		c, found := t.Column("bytes")
		if !found {
			continue
		}
		for i, v := range c.Ints {
			if v > MaxChunkBytes {
				return name, i, v, true
			}
		}
	}
	return "", 0, 0, false
}

// inflate reads a chunk of the recorded inflated size into one buffer of
// exactly that size: the engine does this on the first question about any
// request of the chunk, so it must not grow a buffer as it reads.
func inflate(s string, size int64) ([]byte, error) {
	if size < 0 || size > maxChunkBytes {
		return nil, fmt.Errorf("stored server evidence chunk: size %d outside 0..%d", size, maxChunkBytes)
	}
	r := newInflater(strings.NewReader(s))
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
	if !c.HasChunk(k) {
		return nil, fmt.Errorf("stored server evidence chunk %d is not loaded yet", k)
	}
	return inflate(c.ServerChunks[k], c.ServerChunkBytes[k])
}

// ServerSpanChunk returns chunk k of the spans no request owns, inflated.
func (c *Core) ServerSpanChunk(k int) ([]byte, error) {
	return inflate(c.SpanChunks[k], c.SpanChunkBytes[k])
}

// MaxAttrValueBytes bounds one stored attribute value: a longer one can
// never fit in an evidence chunk its readers accept (MaxChunkBytes), so the
// importer cuts it to AttrValueKeepBytes with a labelled, counted warning
// instead of building a report its readers refuse. Values under the bound
// whose chunk still grows past MaxChunkBytes are refused at build time,
// naming the span's file:line.
const MaxAttrValueBytes = MaxChunkBytes

// AttrValueKeepBytes is what is kept of a value over MaxAttrValueBytes.
const AttrValueKeepBytes = 1 << 20
