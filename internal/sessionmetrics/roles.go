package sessionmetrics

import "github.com/dsight/dsight/internal/model"

// workerRoles is the role each server worker of d was recorded in, by the
// worker bindings and the assigned spans of the joined evidence; a worker
// recorded in two roles has "" (unknown), as has one never recorded.
// Streamed evidence brings the pairs it gathered as it was encoded.
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
	if l, ok := d.StreamedEvidence.(model.WorkerRoleLister); ok && len(d.Evidence) == 0 {
		for _, wr := range l.WorkerRoles() {
			note(wr.Worker, wr.Role)
		}
		return roles
	}
	for i := range d.Evidence {
		d.Evidence[i].WorkerRoles(func(wr model.WorkerRole) { note(wr.Worker, wr.Role) })
	}
	return roles
}
