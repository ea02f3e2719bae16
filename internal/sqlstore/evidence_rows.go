package sqlstore

import (
	"strings"

	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
)

// The evidence pass encodes spans on its own goroutine and the request
// rows (each record's lifecycle derivation, its stages and bindings and
// their spill) on this one: after the render, the build's second core
// has nothing else to do, and the two halves cost about the same.

// rowBatch is how many evidence records go to the request rows' goroutine
// at once: a channel send per record would cost more than some records.
const rowBatch = 256

type evItem struct {
	k, owner int // the record's place and its request's ordinal (-1 for none)
	ev       *model.RequestEvidence
}

// requestRows derives and spills the request rows of the records sent to
// it, in the order sent; groups[k] says where record k's went.
type requestRows struct {
	p      *evidencePass
	in     chan []evItem
	done   chan struct{}
	batch  []evItem
	groups []rowGroup
	err    error // the goroutine's; read after done
	// scratch is the lifecycle derivation's buffers, reused from one
	// record to the next.
	scratch lifecycle.Scratch
	// released, when set, is told after each batch how many more records
	// the goroutine is done with (EvidenceRows.Then).
	released func(n int)
}

func (p *evidencePass) startRequestRows() *requestRows {
	r := &requestRows{p: p, in: make(chan []evItem, 4), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		// Spilled, then ordered on a key of their own (addSpilled).
		row := &record{intSmall: p.intSmall, valuesOnly: true}
		for batch := range r.in {
			if r.err != nil {
				continue // drained, so the sender never blocks
			}
			for _, it := range batch {
				if r.err = r.add(row, it.owner, it.ev); r.err != nil {
					break
				}
			}
			if r.released != nil {
				r.released(len(batch))
			}
		}
		if r.err == nil {
			r.err = p.out.Flush()
		}
	}()
	return r
}

// send queues record k, owned by request owner. The records are never
// reused by whoever made them (the decoder, the join), so the goroutine
// may read them after the callback returns.
func (r *requestRows) send(k, owner int, ev *model.RequestEvidence) error {
	r.batch = append(r.batch, evItem{k, owner, ev})
	if len(r.batch) == rowBatch {
		r.in <- r.batch
		r.batch = make([]evItem, 0, rowBatch)
	}
	return nil
}

// finish sends the last batch, waits for the goroutine and gives its error.
func (r *requestRows) finish() error {
	if len(r.batch) > 0 {
		r.in <- r.batch
	}
	close(r.in)
	<-r.done
	return r.err
}

// add derives and spills the lifecycle stages and bindings of one record,
// owned by request owner (-1 for none). The values are encoded as
// record.value would store them, without boxing each (a 100k-request
// traced run has ~1M stages).
func (r *requestRows) add(row *record, owner int, ev *model.RequestEvidence) error {
	p, w := r.p, r.p.w
	g := rowGroup{at: p.spillAt}
	if owner >= 0 {
		stages := r.scratch.Stages(ev)
		for i := range stages {
			s := &stages[i]
			row.reset()
			row.int(int64(owner))
			row.int(int64(i))
			row.text(s.ID)
			row.text(s.Name)
			row.text(s.Kind)
			row.int(int64(s.Row))
			row.text(s.Label)
			row.real(w.seconds(s.StartNS))
			row.real(w.seconds(s.EndNS))
			row.text(s.Role)
			optText(row, s.Host)
			row.text(s.ToBoundary.Label)
			optText(row, s.SourceSpanID)
			w.sourceValues(row, s.Evidence.Path)
			if s.Evidence.Path == "" {
				row.null()
			} else {
				row.int(s.Evidence.Line)
			}
			if s.Evidence.Ordinal == nil {
				row.null()
			} else {
				row.int(int64(*s.Evidence.Ordinal))
			}
			if err := r.spill(row, &g.stageLen, &g.stages, &p.maxStage); err != nil {
				return err
			}
		}
	}
	for i := range ev.Bindings {
		b := &ev.Bindings[i]
		// owner is -1 when no request owns the bindings (a key column
		// cannot be NULL).
		row.reset()
		row.int(int64(owner))
		row.int(int64(i))
		row.text(b.Worker)
		row.textOrNull(b.Host)
		row.textOrNull(b.Role)
		row.textOrNull(b.ServerID)
		optText(row, b.Process)
		row.textOrNull(b.Basis)
		row.int(int64(boolInt(b.Ambiguous)))
		w.sourceValues(row, b.Ref.Path)
		row.int(b.Ref.Line)
		if err := r.spill(row, &g.bindLen, &g.binds, &p.maxBinding); err != nil {
			return err
		}
		id, ok := p.workerIDs[b.Worker]
		if !ok {
			if p.workerIDs == nil {
				p.workerIDs = map[string]uint32{}
			}
			// A copy: b.Worker may be a view of a buffer the join reuses.
			id = uint32(len(p.workers))
			p.workers = append(p.workers, strings.Clone(b.Worker))
			p.workerIDs[p.workers[id]] = id
		}
		p.bkeys = append(p.bkeys, bindingKey{worker: id, request: int32(owner), ordinal: int32(i)})
	}
	r.groups = append(r.groups, g)
	return nil
}

// spill puts row in the spill and counts it in its group.
func (r *requestRows) spill(row *record, bytes, rows, largest *int) error {
	enc := row.bytes()
	size, err := r.p.put(enc)
	if err != nil {
		return err
	}
	*bytes += size
	*rows++
	*largest = max(*largest, len(enc))
	return nil
}

// optText is opt for a text column: NULL for nil.
func optText(row *record, s *string) {
	if s == nil {
		row.null()
	} else {
		row.text(*s)
	}
}

// sourceValues is writer.source's two columns: (source id, NULL), or
// (NULL, path) when no source of that path is registered.
func (w *writer) sourceValues(row *record, path string) {
	if id, ok := w.sourceIDs[path]; ok {
		row.int(int64(id))
		row.null()
		return
	}
	if w.misses != nil && path != "" {
		w.misses.note(path)
	}
	row.null()
	row.textOrNull(path)
}

// put spills one record, its length first.
func (p *evidencePass) put(rec []byte) (int, error) {
	var h [9]byte
	k := putVarint(h[:], uint64(len(rec)))
	if _, err := p.out.Write(h[:k]); err != nil {
		return 0, err
	}
	if _, err := p.out.Write(rec); err != nil {
		return 0, err
	}
	p.spillAt += int64(k + len(rec))
	return k + len(rec), nil
}
