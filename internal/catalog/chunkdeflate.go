package catalog

import (
	"bytes"
	"runtime"
	"strings"
	"sync"

	"github.com/dsight/dsight/internal/model"
)

// chunkDeflater encodes, lays out and deflates evidence chunks on other
// goroutines while the build keeps finishing the next requests: a chunk's
// bytes are a pure function of its records (one level, one fresh stream
// per chunk), so encoding several at once gives the bytes a sequential
// build gives, each into its own slot in chunk order.
//
// At most one chunk per core is in flight; a flush beyond that waits, so
// the records and raw chunks held stay a few chunks', not the run's.
type chunkDeflater struct {
	slots   []*chunk
	tokens  chan struct{}
	wg      sync.WaitGroup
	writers sync.Pool // *deflater
	// encoders are EvidenceWriters reused from chunk to chunk (reset).
	encoders sync.Pool
	// spill, when set, takes each deflated chunk as it is finished, and
	// its slot keeps only where the bytes lie.
	spill *evidenceSpill
	// released hears each chunk whose records are encoded.
	released chunkReleases
}

// add queues the chunk of records recs; its slot is filled when it is
// deflated.
func (d *chunkDeflater) add(recs []*model.RequestEvidence) {
	if d.tokens == nil {
		d.tokens = make(chan struct{}, runtime.GOMAXPROCS(0))
	}
	slot, c := &chunk{}, len(d.slots)
	d.slots = append(d.slots, slot)
	d.tokens <- struct{}{}
	d.wg.Add(1)
	go func() {
		defer func() { <-d.tokens; d.wg.Done() }()
		w, _ := d.encoders.Get().(*EvidenceWriter)
		if w == nil {
			w = NewEvidenceWriter()
		}
		defer d.encoders.Put(w)
		w.reset()
		for _, r := range recs {
			w.AddRequest(r)
		}
		raw := w.layout()
		var big *model.Span
		bigBytes := -1
		if int64(len(raw)) > MaxChunkBytes {
			big, bigBytes = biggestSpan(recs)
		}
		// The layout holds copies of the records' strings: the records,
		// and what their strings are views of, may go.
		d.released.done(c)
		var buf bytes.Buffer
		fw, _ := d.writers.Get().(*deflater)
		if fw == nil {
			fw = newDeflater(&buf)
		} else {
			fw.Reset(&buf)
		}
		// The same writer, level and stream as encodeChunks: the bytes
		// depend on the records only.
		fw.Write(raw)
		fw.Close()
		d.writers.Put(fw)
		if d.spill != nil {
			if at, err := d.spill.put(buf.Bytes()); err == nil {
				*slot = chunk{size: int64(len(raw)), spilled: true, at: at, stored: int64(buf.Len()), big: big, bigBytes: bigBytes}
				return
			}
			// A chunk the disk refused is held instead: the build goes on.
		}
		*slot = chunk{deflated: buf.String(), size: int64(len(raw)), big: big, bigBytes: bigBytes}
	}()
}

// wait returns every chunk queued, in order, once each is deflated.
func (d *chunkDeflater) wait() []chunk {
	d.wg.Wait()
	out := make([]chunk, len(d.slots))
	for k, s := range d.slots {
		out[k] = *s
	}
	return out
}

// biggestSpan is the first of the records' spans with the most attribute
// bytes (AttrBytes), kept without its attributes, its strings copied (the
// records' may be views of a buffer that is reused); nil and -1 when the
// records have no span.
func biggestSpan(recs []*model.RequestEvidence) (*model.Span, int) {
	var big *model.Span
	most := -1
	for _, r := range recs {
		for k := range r.Spans {
			sp := r.Spans[k].Span
			if n := AttrBytes(sp.Attrs); n > most {
				big = &model.Span{Name: strings.Clone(sp.Name), Ref: model.SpanRef{Path: strings.Clone(sp.Ref.Path), Line: sp.Ref.Line, Ordinal: sp.Ref.Ordinal}}
				most = n
			}
		}
	}
	return big, most
}
