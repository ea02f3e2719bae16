package catalog

import (
	"bytes"
	"runtime"
	"sync"
)

// chunkDeflater lays out and deflates finished evidence chunks on other
// goroutines while the build keeps encoding the next requests: a chunk's
// bytes are a pure function of its records (one level, one fresh stream
// per chunk), so deflating several at once gives the bytes a sequential
// build gives, each into its own slot in chunk order.
//
// At most one chunk per core is in flight; a flush beyond that waits, so
// the raw chunks held stay a few, not the run's.
type chunkDeflater struct {
	slots   []*chunk
	tokens  chan struct{}
	wg      sync.WaitGroup
	writers sync.Pool
	// spill, when set, takes each deflated chunk as it is finished, and
	// its slot keeps only where the bytes lie.
	spill *evidenceSpill
}

// add queues w's chunk; its slot is filled when it is deflated.
func (d *chunkDeflater) add(w *EvidenceWriter) {
	if d.tokens == nil {
		d.tokens = make(chan struct{}, runtime.GOMAXPROCS(0))
	}
	slot := &chunk{}
	d.slots = append(d.slots, slot)
	d.tokens <- struct{}{}
	d.wg.Add(1)
	go func() {
		defer func() { <-d.tokens; d.wg.Done() }()
		raw := w.Bytes()
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
				*slot = chunk{size: int64(len(raw)), spilled: true, at: at, stored: int64(buf.Len())}
				return
			}
			// A chunk the disk refused is held instead: the build goes on.
		}
		*slot = chunk{deflated: buf.String(), size: int64(len(raw))}
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
