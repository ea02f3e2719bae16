package query

import (
	"bytes"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// A family's stack mark is stored in the core and answered by
// "metric_families" (the page's listMetricFamilies and the CLI's kind);
// families without one say nothing.
func TestMetricFamiliesStackBy(t *testing.T) {
	d := &model.Dataset{Meta: model.Meta{Job: "s", OriginNS: 1, DurationNS: 4e9}, Requests: []model.Request{
		{ID: "a", Session: "s", Agent: "s", StartNS: 0, EndNS: 1e9, Status: model.StatusCompleted}},
		MetricFamilies: []model.MetricFamily{
			{Name: "session_in_flight_requests", Derived: true, SourceKind: model.SourceDerived, Endpoints: []string{}, StackBy: []string{"phase", "worker"}},
			{Name: "session_ttft", Derived: true, SourceKind: model.SourceDerived, Endpoints: []string{}, Order: 1},
		}}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	out := e.Handle([]byte(`{"op":"metric_families"}`))
	if !bytes.Contains(out, []byte(`"name":"session_in_flight_requests"`)) || !bytes.Contains(out, []byte(`"stack_by":["phase","worker"]`)) || bytes.Count(out, []byte(`"stack_by"`)) != 1 {
		t.Errorf("metric_families: %s", out)
	}
}
