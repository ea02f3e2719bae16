package catalog

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
)

// decodedChunk is one evidence chunk's records, decoded; err is the
// chunk's first decoding error, after the records decoded before it.
type decodedChunk struct {
	evs []*model.RequestEvidence
	err error
}

// evidenceAhead is how many decoded chunks wait for the reader: enough to
// keep the decoding goroutine busy, few enough to hold a handful.
const evidenceAhead = 2

// decodeAhead decodes the stream's chunks in order on a goroutine of its
// own and returns them one by one on next; stop ends it early and waits
// for it, so no decode outlives Each.
func (s *StreamedEvidence) decodeAhead() (next <-chan decodedChunk, stop func()) {
	out := make(chan decodedChunk, evidenceAhead)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for c, ch := range s.chunks {
			d := decodeChunkRecords(c, ch, s.spill)
			select {
			case out <- d:
			case <-quit:
				return
			}
			if d.err != nil {
				return
			}
		}
	}()
	return out, func() { close(quit); <-done }
}

func decodeChunkRecords(c int, ch chunk, spill *evidenceSpill) decodedChunk {
	p, err := spill.payload(ch)
	if err != nil {
		return decodedChunk{err: fmt.Errorf("server evidence chunk %d: %w", c, err)}
	}
	raw, err := inflate(p, ch.size)
	if err != nil {
		return decodedChunk{err: err}
	}
	dec, err := DecodeEvidenceChunk(raw)
	if err != nil {
		return decodedChunk{err: fmt.Errorf("server evidence chunk %d: %w", c, err)}
	}
	var d decodedChunk
	d.evs = make([]*model.RequestEvidence, 0, dec.Len())
	for slot := range dec.Len() {
		ev, err := dec.Request(slot)
		if err != nil {
			d.err = fmt.Errorf("server evidence chunk %d slot %d: %w", c, slot, err)
			return d
		}
		d.evs = append(d.evs, ev)
	}
	return d
}
