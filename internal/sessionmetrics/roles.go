package sessionmetrics

import "github.com/dsight/dsight/internal/model"

// workerRoles is the role each server worker of d was recorded in, by the
// worker bindings and the assigned spans of the joined evidence; a worker
// recorded in two roles has "" (unknown), as has one never recorded.
func workerRoles(d *model.Dataset) map[string]string {
	roles := map[string]string{}
	note := func(w, role string) {
		if w == "" {
			return
		}
		if have, ok := roles[w]; ok && have != role {
			roles[w] = ""
			return
		}
		roles[w] = role
	}
	for i := range d.Evidence {
		e := &d.Evidence[i]
		for _, b := range e.Bindings {
			if !b.Ambiguous {
				note(b.Worker, model.CanonicalRole(b.Role))
			}
		}
		for k := range e.Spans {
			if sp := &e.Spans[k]; sp.Worker != "" && sp.Span != nil {
				note(sp.Worker, sp.Role())
			}
		}
	}
	return roles
}
