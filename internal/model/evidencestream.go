package model

// EvidenceStream is server evidence a build did not keep as records: the
// join encoded each request's evidence as it finished it, and readers
// (the report writer, the SQL store) take it back one request at a time
// instead of reading Dataset.Evidence. Request k of the stream is what
// Dataset.Evidence[k] would hold, and RequestServer.Evidence indexes it.
type EvidenceStream interface {
	// Len is the number of requests with evidence.
	Len() int
	// Each calls f with every request's evidence in index order, stopping
	// at f's first error, which it returns. ev is valid during the call
	// only; a stream may be read more than once.
	Each(f func(k int, ev *RequestEvidence) error) error
}

// WorkerRole is a server worker and a role its evidence records it in.
type WorkerRole struct{ Worker, Role string }

// WorkerRoles calls f for every worker and role r records: its
// unambiguous bindings, and the spans assigned to a worker (a worker may
// come with several roles, and once per record).
func (r *RequestEvidence) WorkerRoles(f func(WorkerRole)) {
	for _, b := range r.Bindings {
		if !b.Ambiguous && b.Worker != "" {
			f(WorkerRole{b.Worker, CanonicalRole(b.Role)})
		}
	}
	for k := range r.Spans {
		if sp := &r.Spans[k]; sp.Worker != "" && sp.Span != nil {
			f(WorkerRole{sp.Worker, sp.Role()})
		}
	}
}

// WorkerRoleLister is an EvidenceStream that gathered, as it encoded its
// records, every distinct WorkerRole they name, so a reader needing only
// those (the session metrics' stacking rule) does not decode the stream.
type WorkerRoleLister interface {
	WorkerRoles() []WorkerRole
}
