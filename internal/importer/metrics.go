package importer

import (
	"github.com/dsight/dsight/internal/metrics"
	"github.com/dsight/dsight/internal/model"
)

// readMetrics reads Tachometer captures and log-derived metrics over the
// run window [origin, last] (absolute ns), registering every file read.
func (res *Result) readMetrics(d *model.Dataset, root, logDir string, workers []string, opt Options, origin, last int64, claimed map[string]bool) error {
	register := func(path, kind string) (int, string, error) {
		rel := relative(root, path)
		for _, s := range d.Sources {
			if s.Path == rel {
				return s.ID, rel, nil
			}
		}
		src, err := res.open(d, root, path, kind)
		if err != nil {
			return 0, "", err
		}
		defer src.close()
		if err := res.finishSource(d, src); err != nil {
			return 0, "", err
		}
		claimed[path] = true
		return src.id, src.rel, nil
	}
	r, err := metrics.Read(metrics.Options{
		LogDir: logDir, Capture: opt.Metrics, WorkerLogs: workers, Location: opt.IterationTimezone,
		OriginNS: origin, LastNS: last, Register: register,
	})
	if err != nil {
		return err
	}
	d.MetricFamilies, d.Metrics = r.Families, r.Series
	for k, v := range r.Audit {
		d.Audit[k] += v
	}
	d.Meta.Warnings = append(d.Meta.Warnings, r.Warnings...)
	return nil
}
