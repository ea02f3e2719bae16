package importer

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/metrics"
	"github.com/dsight/dsight/internal/sourcename"
)

// readLogMetrics applies the log-metric generators to one worker log as
// it is read for its server evidence. Points keep absolute times: the
// window frames them when the metrics are built.
func (b *build) readLogMetrics(r io.Reader, src *source, id sourcename.Identity) error {
	res, err := logmetric.Read(r, logmetric.SourceInfo{Path: src.rel, SourceID: src.id, Worker: id.Worker, Host: id.Host, Role: id.Role}, b.opt.IterationTimezone, metrics.Generators()...)
	if err != nil {
		if b.logsErr == nil {
			b.logsErr = err
		}
		return err
	}
	b.logs = append(b.logs, res)
	return nil
}

// metricEnvelope is the time range the metric sources record, for runs
// without a client export: the capture's files are inspected (once; the
// read reuses it) and the worker logs were read with the server evidence.
func (b *build) metricEnvelope() (lo, hi int64, ok bool, err error) {
	if err := b.capture.Inspect(); err != nil {
		return 0, 0, false, err
	}
	if b.logsErr != nil {
		return 0, 0, false, b.logsErr
	}
	return metrics.Envelope(b.capture, b.logs)
}

// readMetrics reads the Tachometer capture (with its collector
// configuration) and builds it and the log metrics over the run window
// [b.origin, b.last] (absolute ns), registering every file read.
func readMetrics(b *build, _ []string) error {
	if b.logsErr != nil {
		return b.logsErr
	}
	d := b.d
	r, err := metrics.Read(metrics.Options{
		LogDir: b.logDir, Location: b.opt.IterationTimezone, OriginNS: b.origin, LastNS: b.last,
		Discovered: b.capture, Logs: b.logs, Register: b.register, ReadFile: b.readConfig,
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

// readConfig reads the collector configuration for the metrics, once and
// only if the inventory holds it.
func (b *build) readConfig(path, kind string, read func(io.Reader) error) error {
	if rel, err := filepath.Rel(b.logDir, path); err != nil || b.inv.entries[filepath.ToSlash(rel)] == nil {
		return fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	_, err := b.readFile(path, kind, func(src *source) error { return read(src.reader()) })
	return err
}
