package sessionmetrics

import "github.com/dsight/dsight/internal/model"

// The in-flight bands by phase and by worker are drawn stacked (the seed's
// weights-version bands) only where stacking them is true: where every
// request is counted in at most one band of the key, so that the bands add
// up to at most the total, the rest being the requests without that label.
// A request has one recorded phase; in disaggregated serving it is served
// by a prefill and a decode worker, and the worker bands then overlap and
// are not stackable.

// stackKeys lists, in label order, the label keys of the in-flight bands
// reqs would have that stack: "phase" when more than one phase is
// recorded, "worker" when a request names a worker and none names two.
func stackKeys(reqs []*model.Request) []string {
	keys := []string{}
	phases := map[string]bool{}
	anyWorker, shared := false, false
	for _, r := range reqs {
		if r.Phase != nil {
			phases[*r.Phase] = true
		}
		if r.Server != nil && len(r.Server.Workers) > 0 {
			anyWorker = true
			shared = shared || len(r.Server.Workers) > 1
		}
	}
	if len(phases) > 1 {
		keys = append(keys, "phase")
	}
	if anyWorker && !shared {
		keys = append(keys, "worker")
	}
	return keys
}
