package importer

import "github.com/dsight/dsight/internal/model"

// namesDecode says whether r names its decode worker: an unambiguous
// worker-log binding of decode, or a joined decode span. Only OTel spans
// name the decode worker of a request whose decode log records no binding
// for it, so without OTel (--no-otel, an untraced request) the request
// would lose its decode worker without a word (decodeCounter counts them).
func namesDecode(r *model.RequestEvidence) bool {
	for _, b := range r.Bindings {
		if b.Role == model.RoleDecode && !b.Ambiguous {
			return true
		}
	}
	for k := range r.Spans {
		if r.Spans[k].Span.Role() == model.RoleDecode {
			return true
		}
	}
	return false
}
