package sqlstore

import (
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
)

// evidenceOwners maps each server evidence record to the request that
// owns it, -1 for none.
func evidenceOwners(d *model.Dataset) []int {
	owner := make([]int, evidenceLen(d))
	for i := range owner {
		owner[i] = -1
	}
	for i := range d.Requests {
		if s := d.Requests[i].Server; s != nil && s.Evidence >= 0 && s.Evidence < len(owner) {
			owner[s.Evidence] = i
		}
	}
	return owner
}

// evidence writes the workers that served each request, and, in one pass
// over the server evidence (a streamed build decodes it from its chunks
// each time it is read), each request's bindings and lifecycle stages
// (internal/lifecycle's derivation, the one the engine answers with).
func (w *writer) evidence(d *model.Dataset) error {
	owner := evidenceOwners(d)
	if err := w.table("request_workers", 2, func(ins *inserter) error {
		for i := range d.Requests {
			if s := d.Requests[i].Server; s != nil {
				for _, wk := range uniq(s.Workers) {
					if err := ins.add(wk, i); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return w.table("worker_bindings", 12, func(bindings *inserter) error {
		return w.table("lifecycle_stages", 17, func(stages *inserter) error {
			return eachEvidence(d, func(k int, ev *model.RequestEvidence) error {
				for n, b := range ev.Bindings {
					src, path := w.source(b.Ref.Path)
					// owner[k] is -1 when no request owns the bindings
					// (a key column cannot be NULL).
					if err := bindings.add(owner[k], n, b.Worker, nonEmpty(b.Host), nonEmpty(b.Role), nonEmpty(b.ServerID), opt(b.Process),
						nonEmpty(b.Basis), boolInt(b.Ambiguous), src, path, b.Ref.Line); err != nil {
						return err
					}
				}
				if owner[k] >= 0 && lifecycle.Available(ev) {
					l := lifecycle.Derive(ev)
					for n, s := range l.Stages {
						src, path := w.source(s.Evidence.Path)
						if err := stages.add(owner[k], n, s.ID, s.Name, s.Kind, s.Row, s.Label, w.seconds(s.StartNS), w.seconds(s.EndNS),
							s.Role, opt(s.Host), s.ToBoundary.Label, opt(s.SourceSpanID),
							src, path, evidenceLine(s.Evidence), opt(s.Evidence.Ordinal)); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
	})
}

// serverSpans writes every joined span (request set) and every span no
// request owns (request NULL), in that order, as the server_spans b-tree.
func (w *writer) serverSpans(d *model.Dataset, bf *bulkFile) error {
	owner := evidenceOwners(d)
	tree, err := bf.rowidTree("server_spans")
	if err != nil {
		return err
	}
	rec := bf.record()
	var n int64
	span := func(req any, s *model.JoinedSpan) error {
		sp := s.Span
		service, _ := sp.Resource.ServiceName()
		src, path := w.source(sp.Ref.Path)
		rec.reset()
		// ordinal is the rowid: an INTEGER PRIMARY KEY is stored as NULL.
		for _, v := range [...]any{nil, req, sp.TraceID, sp.SpanID, nonEmpty(sp.ParentSpanID), sp.Name, sp.Kind.String(), sp.Role(),
			w.seconds(sp.StartNS), w.seconds(sp.EndNS), int64(sp.Status.Code), nonEmpty(sp.Status.Message),
			nonEmpty(service), attr(sp, "dynamo.request.id"), attr(sp, "dynamo.process.epoch"),
			nonEmpty(s.Join), nonEmpty(s.Worker), nonEmpty(s.WorkerBasis), src, path, sp.Ref.Line, sp.Ref.Ordinal} {
			if err := rec.value(v); err != nil {
				return err
			}
		}
		err := tree.add(n, rec.bytes())
		n++
		return err
	}
	if err := eachEvidence(d, func(k int, ev *model.RequestEvidence) error {
		var req any
		if owner[k] >= 0 {
			req = owner[k]
		}
		for j := range ev.Spans {
			if err := span(req, &ev.Spans[j]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for j := range d.ServerSpans {
		if err := span(nil, &d.ServerSpans[j]); err != nil {
			return err
		}
	}
	return bf.doneRowid("server_spans", tree)
}
