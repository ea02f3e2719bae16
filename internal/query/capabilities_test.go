package query

import (
	"encoding/json"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// server_activity means an independent server span exists (server_spans
// answers something), not that some request has joined spans; workers
// counts every worker with evidence, not only those that served a request.
func TestCapabilitiesAreTruthful(t *testing.T) {
	for _, tc := range []struct {
		name     string
		unjoined bool
		activity bool
	}{{"traced with unjoined spans", true, true}, {"traced, every span joined", false, false}} {
		d := serverFixture()
		if !tc.unjoined {
			d.ServerSpans = nil
		}
		w := "decode-7"
		d.MetricFamilies = []model.MetricFamily{{Name: "sglang:num_running_reqs", Component: "Workers", SeriesCount: 1}}
		d.Metrics = []model.MetricSeries{{ID: 0, Name: "sglang:num_running_reqs", Component: "Workers", Worker: &w, Temporal: "sample"}}
		e, err := FromDataset(d)
		if err != nil {
			t.Fatal(err)
		}
		var sum Summary
		if err := json.Unmarshal(mustResult(t, e, `{"op":"summary"}`), &sum); err != nil {
			t.Fatal(err)
		}
		var spans struct {
			Total int `json:"total"`
		}
		if err := json.Unmarshal(mustResult(t, e, `{"op":"server_spans"}`), &spans); err != nil {
			t.Fatal(err)
		}
		want := Capabilities{Requests: true, RequestBreakdown: true, ServerActivity: tc.activity, Metrics: true}
		if sum.Capabilities != want {
			t.Errorf("%s: capabilities %+v, want %+v", tc.name, sum.Capabilities, want)
		}
		if sum.Capabilities.ServerActivity != (spans.Total > 0) {
			t.Errorf("%s: server_activity %v with %d server spans", tc.name, sum.Capabilities.ServerActivity, spans.Total)
		}
		// decode-0 and prefill-0 served the request; decode-7 has a series.
		if sum.Counts.Workers != 3 {
			t.Errorf("%s: %d workers, want 3", tc.name, sum.Counts.Workers)
		}
	}
}
