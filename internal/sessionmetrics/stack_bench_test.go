package sessionmetrics

import (
	"strconv"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// BenchmarkStackKeys1M is the stacking rule over a million disaggregated
// requests, each served by one of four prefill and one of four decode
// workers whose roles the evidence records: the rule reads every request
// once per group tried (all workers, then per role).
func BenchmarkStackKeys1M(b *testing.B) {
	d := benchRun(1_000_000)
	ev := model.RequestEvidence{}
	for k := range 4 {
		for _, role := range []string{model.RolePrefill, model.RoleDecode} {
			ev.Bindings = append(ev.Bindings, model.WorkerBinding{Worker: role + "-" + strconv.Itoa(k), Role: role})
		}
	}
	d.Evidence = []model.RequestEvidence{ev}
	for i := range d.Requests {
		d.Requests[i].Server = &model.RequestServer{Workers: []string{"decode-" + strconv.Itoa(i%4), "prefill-" + strconv.Itoa(i/4%4)}}
	}
	rs := &reqs{roles: workerRoles(d)}
	for i := range d.Requests {
		rs.add(&d.Requests[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if keys, within := stackKeys(rs); len(keys) != 1 || within["worker"] != "role" {
			b.Fatalf("stack keys %v within %v", keys, within)
		}
	}
}
