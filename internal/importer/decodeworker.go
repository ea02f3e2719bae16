package importer

import (
	"fmt"

	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/model"
)

// noDecodeWorker counts the bridged requests of a disaggregated run (one
// with a decode worker log) that name no decode worker: no worker-log
// binding or engine id map names one and no decode span was joined. Only
// OTel spans name the decode worker of a request whose decode log records
// no binding for it, so without OTel (--no-otel, an untraced request) the
// request would lose its decode worker without a word. It returns the
// count and the first such request's client row.
func noDecodeWorker(in *join.Input, reqs []model.RequestEvidence) (int64, string) {
	disaggregated := false
	for _, wl := range in.WorkerLogs {
		disaggregated = disaggregated || wl.Name.Role == model.RoleDecode
	}
	if !disaggregated {
		return 0, ""
	}
	var n int64
	first := ""
	for i := range reqs {
		r := &reqs[i]
		if len(r.ServerIDs) == 0 || namesDecode(r) {
			continue
		}
		if n++; first == "" {
			first = fmt.Sprintf("%s:%d", r.Client.Evidence.Path, r.Client.Evidence.Line)
		}
	}
	return n, first
}

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
