package lifecycle

import "github.com/dsight/dsight/internal/model"

// A traced run's lifecycles read every span's activity label: ~2M spans
// for 100,000 requests, each label built from its role (or selection
// phase) and words. The labels of the roles and phases spans record are
// built once here; any other spelling is built as before.

// Suffixes of the role and phase labels ActivityFor builds.
const (
	suffixIngress   = " ingress and transport setup"
	suffixOperation = " operation"
	suffixDispatch  = " backend stream creation"
	suffixPump      = " response pump"
	suffixSelection = " selection"
)

// knownTitles is titleCase of the roles and phases spans record.
var knownTitles = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{model.RolePrefill, model.RoleDecode, model.RoleAgg, "unknown", "frontend", "router", "Router",
		"Prefill", "Decode", "Agg", "aggregated"} {
		m[s] = titleCase(s)
	}
	return m
}()

// knownLabels is each known title joined with each suffix.
var knownLabels = func() map[[2]string]string {
	m := map[[2]string]string{}
	for _, t := range knownTitles {
		for _, suffix := range []string{suffixIngress, suffixOperation, suffixDispatch, suffixPump, suffixSelection} {
			m[[2]string{t, suffix}] = t + suffix
		}
	}
	return m
}()

// title is titleCase(s), looked up for the known spellings.
func title(s string) string {
	if t, ok := knownTitles[s]; ok {
		return t
	}
	return titleCase(s)
}

// roleLabel is title + suffix, looked up for the known titles.
func roleLabel(title, suffix string) string {
	if l, ok := knownLabels[[2]string{title, suffix}]; ok {
		return l
	}
	return title + suffix
}
