package sessionmetrics

// The in-flight bands by phase and by worker are drawn stacked (the seed's
// weights-version bands) only where stacking them is true: where every
// request is counted in at most one band of the key, so that the bands add
// up to at most the total, the rest being the requests without that label.
// A request has one recorded phase; in disaggregated serving it is served
// by a prefill and a decode worker, and the worker bands then overlap and
// are not stackable.

// stackKeys lists, in label order, the label keys of the in-flight bands
// rs would have that stack: "phase" when more than one phase is recorded,
// "worker" when a request names a worker and none names two (a worker
// listed twice by one request serves it once).
func stackKeys(rs *reqs) []string {
	keys := []string{}
	if len(rs.phases) > 1 {
		keys = append(keys, "phase")
	}
	if len(rs.workers) == 0 {
		return keys
	}
	served := make([]bool, len(rs.rows))
	for _, ks := range rs.workers {
		for _, k := range ks {
			if served[k] {
				return keys
			}
			served[k] = true
		}
	}
	return append(keys, "worker")
}
