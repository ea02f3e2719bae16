package report

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
)

// addMetricShards writes each series' summary as its own detail shard,
// named by content, and returns a shallow copy of d whose series carry
// their shard descriptors, so a reader loads only the series a query needs.
func addMetricShards(files *stageFiles, d *model.Dataset) (*model.Dataset, error) {
	if len(d.Metrics) == 0 {
		return d, nil
	}
	out := *d
	out.Metrics = make([]model.MetricSeries, len(d.Metrics))
	for i, m := range d.Metrics {
		if m.Summary == nil {
			return nil, fmt.Errorf("metric series %d (%s) has no summary", m.ID, m.Name)
		}
		gz, err := m.Summary.Payload.Bytes()
		if err != nil {
			return nil, fmt.Errorf("metric series %d (%s): %w", m.ID, m.Name, err)
		}
		sh := addCompressedShard(files, gz, m.Summary.DecodedBytes)
		m.Shard = &model.MetricShard{Shard: sh, MetricBounds: m.Summary.MetricBounds}
		m.Summary = nil
		out.Metrics[i] = m
	}
	return &out, nil
}

// ReadMetricShard reads the decoded summary payload of one series of the
// report at dir, checking every hash and the decoded size.
func ReadMetricShard(dir string, m *model.MetricSeries) ([]byte, error) {
	if m.Shard == nil {
		return nil, fmt.Errorf("metric series %d has no shard", m.ID)
	}
	raw, err := readShard(dir, m.Shard.Shard)
	if err != nil {
		return nil, fmt.Errorf("metric shard %s: %w", m.Shard.ID, err)
	}
	return raw, nil
}

// LoadMetricShards reads the metric shards an engine named (in a
// metric_plan answer or a plot's failure) from the report at dir and hands
// them over, as the page does with its detail scripts.
func LoadMetricShards(eng *query.Engine, core *catalog.Core, dir string, needs []query.ShardNeed) error {
	for _, need := range needs {
		if len(need.Series) == 0 {
			continue
		}
		if s := need.Series[0]; s < 0 || s >= len(core.Metrics) {
			return fmt.Errorf("metric shard %s names series %d, which the report does not have", need.ID, s)
		}
		payload, err := ReadMetricShard(dir, &core.Metrics[need.Series[0]])
		if err != nil {
			return err
		}
		if err := eng.LoadShard(need.ID, payload); err != nil {
			return err
		}
	}
	return nil
}

// OpenDir is Open that also returns the report directory, for readers that
// load detail shards on demand.
func OpenDir(path string) (*catalog.Core, string, error) {
	c, err := Open(path)
	if err != nil {
		return nil, "", err
	}
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	return c, dir, nil
}
