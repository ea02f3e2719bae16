package main

import (
	"encoding/json"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
)

// A metrics question reads no request table, so its open is never advised
// for huge pages (openReading), but its summary shards are read and
// inflated into fresh memory: the nine in-flight series of a
// 100,000-request traced run (8.4 MB decoded) took 6,500 minor faults a
// question read whole and 5,200 read in segments, against 2,100 and 2,400
// with the advice (5-10 ms of a 35-55 ms question). adviseForMetrics
// advises the heap once the shards the question loads are known, before
// they are read; it counts their decoded bytes, an upper bound of what a
// segmented read touches.

// adviseForMetrics advises the heap (adviseHeap) for a metrics question
// whose core frames and summary shards decode to hugeHeapFrom bytes or
// more, unless the open of r advised it already (its frames alone did).
func adviseForMetrics(e *query.Engine, core *catalog.Core, r *report.Reader, req wireRequest) {
	if req.Op != "metrics" || r == nil {
		return
	}
	read := r.CoreReadBytes(query.SkippedTables(req.Op, req.named()))
	if read < hugeHeapFrom && read+metricReadBytes(e, core, req) >= hugeHeapFrom {
		adviseHeap()
	}
}

// metricReadBytes is how many bytes the summary shards a metrics question
// loads decode to (the shards its metric_plan names), 0 when the plan
// fails: the answer then says why.
func metricReadBytes(e *query.Engine, core *catalog.Core, req wireRequest) int {
	req.Op = "metric_plan"
	raw, err := handle(e, req)
	if err != nil {
		return 0
	}
	var plan query.MetricPlan
	if json.Unmarshal(raw, &plan) != nil {
		return 0
	}
	n := 0
	for _, need := range plan.Shards {
		if len(need.Series) == 0 || need.Series[0] < 0 || need.Series[0] >= len(core.Metrics) {
			continue
		}
		if sh := core.Metrics[need.Series[0]].Shard; sh != nil {
			n += sh.DecodedBytes
		}
	}
	return n
}
