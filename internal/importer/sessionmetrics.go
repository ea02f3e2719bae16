package importer

import (
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sessionmetrics"
)

// deriveSessionMetrics appends the session metrics, derived from the
// client requests, to the metric catalog: after every recorded family
// (their component sorts last), their series ids following the recorded
// ones.
func deriveSessionMetrics(d *model.Dataset) error {
	fams, series, err := sessionmetrics.Derive(d)
	if err != nil || len(fams) == 0 {
		return err
	}
	base := len(d.Metrics)
	for i := range series {
		series[i].ID += base
	}
	d.MetricFamilies = append(d.MetricFamilies, fams...)
	d.Metrics = append(d.Metrics, series...)
	d.Audit["derived_metric_families"] = int64(len(fams))
	return nil
}
