package sqlstore

import (
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
	k  int
	ev *model.RequestEvidence
}

// requestRows derives and spills the request rows of the records sent to
// it, in the order sent; groups[k] says where record k's went.
type requestRows struct {
	p      *evidencePass
	owner  []int
	in     chan []evItem
	done   chan struct{}
	batch  []evItem
	groups []rowGroup
	err    error // the goroutine's; read after done
}

func (p *evidencePass) startRequestRows(owner []int) *requestRows {
	r := &requestRows{p: p, owner: owner, in: make(chan []evItem, 4), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		// Spilled, then ordered on a key of their own (addSpilled).
		row := &record{intSmall: p.intSmall, valuesOnly: true}
		for batch := range r.in {
			if r.err != nil {
				continue // drained, so the sender never blocks
			}
			for _, it := range batch {
				if r.err = r.add(row, it.k, it.ev); r.err != nil {
					break
				}
			}
		}
		if r.err == nil {
			r.err = p.out.Flush()
		}
	}()
	return r
}

// send queues record k. The records are the decoder's, never reused, so
// the goroutine may read them after the callback returns.
func (r *requestRows) send(k int, ev *model.RequestEvidence) error {
	r.batch = append(r.batch, evItem{k, ev})
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

// add derives and spills record k's lifecycle stages and bindings.
func (r *requestRows) add(row *record, k int, ev *model.RequestEvidence) error {
	p, w, owner := r.p, r.p.w, r.owner[k]
	g := rowGroup{at: p.spillAt}
	if owner >= 0 && lifecycle.Available(ev) {
		l := lifecycle.Derive(ev)
		for i, s := range l.Stages {
			src, path := w.source(s.Evidence.Path)
			row.reset()
			for _, v := range [...]any{owner, i, s.ID, s.Name, s.Kind, s.Row, s.Label, w.seconds(s.StartNS), w.seconds(s.EndNS),
				s.Role, opt(s.Host), s.ToBoundary.Label, opt(s.SourceSpanID),
				src, path, evidenceLine(s.Evidence), opt(s.Evidence.Ordinal)} {
				if err := row.value(v); err != nil {
					return err
				}
			}
			enc := row.bytes()
			size, err := p.put(enc)
			if err != nil {
				return err
			}
			g.stageLen += size
			g.stages++
			p.maxStage = max(p.maxStage, len(enc))
		}
	}
	for i, b := range ev.Bindings {
		src, path := w.source(b.Ref.Path)
		row.reset()
		// owner is -1 when no request owns the bindings (a key column
		// cannot be NULL).
		for _, v := range [...]any{owner, i, b.Worker, nonEmpty(b.Host), nonEmpty(b.Role), nonEmpty(b.ServerID), opt(b.Process),
			nonEmpty(b.Basis), boolInt(b.Ambiguous), src, path, b.Ref.Line} {
			if err := row.value(v); err != nil {
				return err
			}
		}
		enc := row.bytes()
		size, err := p.put(enc)
		if err != nil {
			return err
		}
		g.bindLen += size
		g.binds++
		p.maxBinding = max(p.maxBinding, len(enc))
		p.bkeys = append(p.bkeys, bindingKey{worker: b.Worker, request: owner, ordinal: i, position: len(p.bkeys)})
	}
	r.groups = append(r.groups, g)
	return nil
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
