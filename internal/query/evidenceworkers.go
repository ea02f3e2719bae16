package query

import "sort"

// workersWithEvidence lists every worker the report holds evidence of, sorted:
// those that served a request, and those named by a metric series, a batch
// observation (worker-log iterations and snapshots) or a mapped Nsight
// profile. summary.counts.workers counts these, as the reference does, so a
// run whose worker logs are its only source still reports its workers.
func (e *Engine) workersWithEvidence() []string {
	seen := map[string]bool{}
	for _, w := range e.workers() {
		seen[w] = true
	}
	add := func(w string) {
		if w != "" && w != "unmapped" {
			seen[w] = true
		}
	}
	for i := range e.c.Metrics {
		if w := e.c.Metrics[i].Worker; w != nil {
			add(*w)
		}
	}
	for _, w := range e.c.Batch.Worker {
		add(w)
	}
	for _, p := range e.c.Profiles {
		if p.Mapped {
			add(p.Worker)
		}
	}
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}
