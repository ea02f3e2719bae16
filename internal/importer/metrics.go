package importer

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/dsight/dsight/internal/metrics"
)

// readMetrics reads the Tachometer capture (with its collector
// configuration) and builds it and the log metrics over the run window
// [b.origin, b.last] (absolute ns), registering every file read.
func readMetrics(b *build, _ []string) error {
	d := b.d
	b.hashHeld()
	r, err := metrics.Read(metrics.Options{
		LogDir: b.logDir, Location: b.opt.IterationTimezone, OriginNS: b.origin, LastNS: b.last,
		Sources: &b.metrics, Register: b.register, ReadFile: b.readConfig,
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
