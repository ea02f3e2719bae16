package catalog

import (
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// A derived family keeps its flag in its record; a derived series keeps it
// as its source kind, so the series table needs no column for it.
func TestDerivedMetricsRoundTrip(t *testing.T) {
	want := metricSample()
	want.MetricFamilies = append(want.MetricFamilies, model.MetricFamily{Name: "session_in_flight_requests", Component: "Session",
		Unit: "requests", SeriesCount: 1, Endpoints: []string{}, SourceKind: model.SourceDerived, Temporal: "setting", Derived: true})
	want.Metrics = append(want.Metrics, model.MetricSeries{ID: 2, Name: "session_in_flight_requests", Labels: []model.MetricLabel{},
		SourceKind: model.SourceDerived, Temporal: "setting", SourceIDs: []int{0}, Derived: true})
	raw, err := shard.Encode(Encode(want))
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.MetricFamilies, want.MetricFamilies) || !reflect.DeepEqual(got.Metrics, want.Metrics) {
		t.Fatalf("round trip differs:\n got %+v\n     %+v", got.MetricFamilies, got.Metrics)
	}
	if got.MetricFamilies[0].Derived || got.Metrics[0].Derived {
		t.Fatal("a recorded family or series came back derived")
	}
}
