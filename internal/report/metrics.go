package report

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/query"
)

// addMetricShards writes each series' summary as its own detail shard,
// named by content, and returns a shallow copy of d whose series carry
// their shard descriptors, so a reader loads only the series a query needs.
// The files are written on one goroutine per core (metricwrite.go).
func addMetricShards(files *stageFiles, d *model.Dataset) (*model.Dataset, error) {
	return stageMetricShards(files, d, runtime.GOMAXPROCS(0))
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
