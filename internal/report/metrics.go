package report

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"

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
// them over, as the page does with its detail scripts. The shards are read,
// checked and inflated (a segmented summary only as far as its head:
// metricsegments.go; each pack script read once) on one goroutine per core (inflating was most of a
// `dsight query metrics` naming nine series) and handed over in the order
// named; the first failure in that order is the one returned.
func LoadMetricShards(eng *query.Engine, core *catalog.Core, dir string, needs []query.ShardNeed) error {
	type read struct {
		summary metricSummary
		err     error
		done    chan struct{}
	}
	reads := make([]read, len(needs))
	for k := range reads {
		reads[k].done = make(chan struct{})
	}
	var next atomic.Int64
	packs := &packReader{dir: dir} // each pack read once for the question
	stop := make(chan struct{})
	defer close(stop)
	for range max(1, min(runtime.GOMAXPROCS(0), len(needs))) {
		go func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(needs) {
					return
				}
				select {
				case <-stop:
					return
				default:
				}
				reads[k].summary, reads[k].err = readNeed(core, dir, packs, needs[k])
				close(reads[k].done)
			}
		}()
	}
	for k, need := range needs {
		<-reads[k].done
		if reads[k].err != nil {
			return reads[k].err
		}
		if len(need.Series) == 0 {
			continue
		}
		if err := reads[k].summary.handTo(eng, need.ID); err != nil {
			return err
		}
		reads[k].summary = metricSummary{}
	}
	return nil
}

// readNeed reads the summary of the metric shard need names (nothing when
// it names no series).
func readNeed(core *catalog.Core, dir string, packs *packReader, need query.ShardNeed) (metricSummary, error) {
	if len(need.Series) == 0 {
		return metricSummary{}, nil
	}
	if s := need.Series[0]; s < 0 || s >= len(core.Metrics) {
		return metricSummary{}, fmt.Errorf("metric shard %s names series %d, which the report does not have", need.ID, s)
	}
	return readMetricSummary(dir, packs, &core.Metrics[need.Series[0]])
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
