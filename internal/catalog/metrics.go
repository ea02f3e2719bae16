package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Metric tables of the core shard. They hold the catalog and each series'
// metadata and shard descriptor; the samples live in per-series detail
// shards, so the core stays small whatever the capture size.
const (
	TableMetricFamilies = "metric_families"
	TableMetricSeries   = "metric_series"
)

// metricRecord is what the core stores per series besides its filter
// columns: the metadata and where its summary shard is.
type metricRecord struct {
	model.MetricSeries
	Shard *model.MetricShard `json:"shard"`
}

// encodeMetrics lays out the metric tables. The records hold strings,
// integers and one finite resolution, which json.Marshal always encodes.
func encodeMetrics(d *model.Dataset) []shard.Table {
	fams := make([]string, len(d.MetricFamilies))
	for i, f := range d.MetricFamilies {
		b, _ := json.Marshal(f)
		fams[i] = string(b)
	}
	ms := d.Metrics
	recs := make([]string, len(ms))
	for i := range ms {
		b, _ := json.Marshal(metricRecord{ms[i], ms[i].Shard})
		recs[i] = string(b)
	}
	n := len(fams)
	famT := shard.Table{Name: TableMetricFamilies, Rows: n, Columns: []shard.Column{
		strCol("name", n, func(i int) string { return d.MetricFamilies[i].Name }),
		strCol("record", n, func(i int) string { return fams[i] }),
	}}
	n = len(ms)
	seriesT := shard.Table{Name: TableMetricSeries, Rows: n, Columns: []shard.Column{
		strCol("name", n, func(i int) string { return ms[i].Name }),
		optStrCol("worker", n, func(i int) *string { return ms[i].Worker }),
		strCol("record", n, func(i int) string { return recs[i] }),
	}}
	return []shard.Table{famT, seriesT}
}

// metrics decodes the metric tables; absent tables mean a report without
// metrics.
func (o *opener) metrics(c *Core) {
	if t, ok := o.s.Table(TableMetricFamilies); ok {
		recs := o.strs(t, "record")
		for i := range recs {
			var f model.MetricFamily
			if err := json.Unmarshal([]byte(recs[i]), &f); err != nil && o.err == nil {
				o.err = fmt.Errorf("metric family %d: %w", i, err)
			}
			c.MetricFamilies = append(c.MetricFamilies, f)
		}
	}
	if t, ok := o.s.Table(TableMetricSeries); ok {
		recs := o.strs(t, "record")
		for i := range recs {
			var r metricRecord
			if err := json.Unmarshal([]byte(recs[i]), &r); err != nil && o.err == nil {
				o.err = fmt.Errorf("metric series %d: %w", i, err)
			}
			if o.err == nil && r.ID != i {
				o.err = fmt.Errorf("metric series row %d has id %d", i, r.ID)
			}
			r.MetricSeries.Shard = r.Shard
			c.Metrics = append(c.Metrics, r.MetricSeries)
		}
	}
}
