package sessionmetrics

// The in-flight bands by phase and by worker are drawn stacked (the seed's
// weights-version bands) only where stacking them is true: where every
// request is counted in at most one band of a stack, so that the bands add
// up to at most the total, the rest being the requests without that label.
// A request has one recorded phase. In disaggregated serving it is served
// by a prefill and a decode worker: all worker bands together overlap, but
// the prefill bands stack among themselves, and so do the decode bands.

// stackKeys lists, in label order, the label keys of the in-flight bands
// rs would have that stack, and which of them stack only within the values
// of another label: "phase" when more than one phase is recorded; "worker"
// when a request names a worker and none names two (a worker listed twice
// by one request serves it once); else "worker" within "role" when every
// worker's role is recorded and no request names two workers of one role.
func stackKeys(rs *reqs) ([]string, map[string]string) {
	keys := []string{}
	if len(rs.phases) > 1 {
		keys = append(keys, "phase")
	}
	if len(rs.workers) == 0 {
		return keys, nil
	}
	if workersStack(rs, func(string) string { return "" }) {
		return append(keys, "worker"), nil
	}
	for w := range rs.workers {
		if rs.roles[w] == "" {
			return keys, nil
		}
	}
	if workersStack(rs, func(w string) string { return rs.roles[w] }) {
		return append(keys, "worker"), map[string]string{"worker": "role"}
	}
	return keys, nil
}

// workersStack reports whether no request is served by two workers of the
// same group.
func workersStack(rs *reqs, group func(worker string) string) bool {
	served := map[string][]bool{}
	for w, ks := range rs.workers {
		g := group(w)
		seen := served[g]
		if seen == nil {
			seen = make([]bool, len(rs.rows))
			served[g] = seen
		}
		for _, k := range ks {
			if seen[k] {
				return false
			}
			seen[k] = true
		}
	}
	return true
}
