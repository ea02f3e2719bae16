package lifecycle

import (
	"github.com/dsight/dsight/internal/model"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Activity kinds: an activity is a measured step, an envelope an inclusive
// parent of other steps, and concurrent work overlaps the request's
// progress rather than preceding it.
const (
	KindActivity   = "activity"
	KindEnvelope   = "envelope"
	KindConcurrent = "concurrent"
)

// ActivityLabel labels a span from Dynamo's lifecycle vocabulary (request
// preprocessing, router selection, worker ingress, dispatch, operations and
// response streaming). The role is the span's recorded
// dynamo.operation.role ("unknown" when absent); the selection phase is a
// recorded "phase" attribute ("Router" when absent). Other names are not
// activities and report ok == false.
func ActivityLabel(name string, attrs model.Attributes) (label, kind string, ok bool) {
	role := "unknown"
	if v, found := attrs.Get("dynamo.operation.role"); found {
		if s, isStr := v.Str(); isStr {
			role = model.CanonicalRole(s)
		}
	}
	phase, _ := attrs.String("phase")
	return ActivityFor(name, role, phase)
}

// ActivityFor is ActivityLabel with the role and selection phase given
// explicitly: callers pass Span.Role() and the phase the join associated
// from the next same-parent route ("" when none).
func ActivityFor(name, role, phase string) (label, kind string, ok bool) {
	role = title(role)
	switch {
	case name == "request.preprocessing":
		return "Preprocessing", KindActivity, true
	case name == "kv_router.select_worker":
		if phase == "" {
			phase = "Router"
		}
		return roleLabel(title(phase), suffixSelection), KindActivity, true
	case name == "worker.admission":
		return roleLabel(role, suffixIngress), KindActivity, true
	case strings.HasPrefix(name, "worker.operation."):
		return roleLabel(role, suffixOperation), KindEnvelope, true
	case name == "request.dispatch":
		return roleLabel(role, suffixDispatch), KindActivity, true
	case strings.HasPrefix(name, "response.streaming."):
		return roleLabel(role, suffixPump), KindActivity, true
	case name == "response.streaming":
		return "Frontend response stream", KindConcurrent, true
	}
	return "", "", false
}

// ActivityDescription says what an activity measures, and what it does not.
// For a worker selection whose phase was associated, the importer shows the
// association basis instead.
func ActivityDescription(name string) string {
	switch {
	case name == "request.preprocessing":
		return "Frontend request preparation, including tokenization."
	case name == "kv_router.select_worker":
		return "Worker selection; the phase is not recorded on this span."
	case name == "worker.admission":
		return "Envelope decoding and response transport setup; not engine scheduler admission."
	case strings.HasPrefix(name, "worker.operation."):
		return "Inclusive parent of dispatch and response pumping, including backend waits. Not GPU compute time."
	case name == "request.dispatch":
		return "Runtime segment.generate. The Dynamo Python path creates a response stream; " +
			"this does not prove engine submission or first-token completion."
	case strings.HasPrefix(name, "response.streaming."):
		return "Starts before awaiting the first response; includes initial backend wait, generation, and publishing."
	case name == "response.streaming":
		return "First final SSE event available through stream completion/drop. " +
			"Concurrent with worker generation; not client first-token receipt."
	}
	return ""
}

// titleCase upper-cases the first letter and lower-cases the rest
// ("decode" → "Decode", "PREFILL" → "Prefill"), as labels have always read.
func titleCase(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToTitle(r)) + strings.ToLower(s[size:])
}
