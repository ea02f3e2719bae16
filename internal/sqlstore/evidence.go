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

// evidence writes the workers that served each request and, for a run
// whose bindings or lifecycle stages did not fit the bulk layout
// (w.sqliteEvidence), those tables through SQLite, in one more pass over
// the server evidence (internal/lifecycle's derivation, the one the engine
// answers with).
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
	wantBindings, wantStages := w.sqliteEvidence[tableBindings], w.sqliteEvidence[tableStages]
	if !wantBindings && !wantStages {
		return nil
	}
	return w.table("worker_bindings", 12, func(bindings *inserter) error {
		return w.table("lifecycle_stages", 17, func(stages *inserter) error {
			return eachEvidence(d, func(k int, ev *model.RequestEvidence) error {
				for n, b := range ev.Bindings {
					if !wantBindings {
						break
					}
					src, path := w.source(b.Ref.Path)
					// owner[k] is -1 when no request owns the bindings
					// (a key column cannot be NULL).
					if err := bindings.add(owner[k], n, b.Worker, nonEmpty(b.Host), nonEmpty(b.Role), nonEmpty(b.ServerID), opt(b.Process),
						nonEmpty(b.Basis), boolInt(b.Ambiguous), src, path, b.Ref.Line); err != nil {
						return err
					}
				}
				if wantStages && owner[k] >= 0 && lifecycle.Available(ev) {
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
