package metrics

import (
	"path/filepath"

	"github.com/dsight/dsight/internal/lineread"
	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/sglang"
	"github.com/dsight/dsight/internal/sourcename"
	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/internal/tokenspeed"
)

// Envelope is the time range the metric sources themselves record, for runs
// without a client export: every capture row's timestamp_ns, and worker-log
// observations that carry a non-setting value (their timestamp plus its
// resolution; configuration alone never creates an envelope). ok is false
// when there is none. Files are read but not registered; Read registers
// them.
func Envelope(opt Options) (lo, hi int64, ok bool, err error) {
	add := func(a, b int64) {
		if b < a {
			return
		}
		if !ok {
			lo, hi, ok = a, b, true
			return
		}
		lo, hi = min(lo, a), max(hi, b)
	}
	root, explicit := filepath.Join(opt.LogDir, filepath.FromSlash(tachometer.DefaultRoot)), false
	if opt.Capture != "" {
		root, explicit = opt.Capture, true
	}
	c, err := tachometer.Discover(root, explicit)
	if err != nil {
		return 0, 0, false, err
	}
	if len(c.Files) > 0 {
		a, b, found, err := c.TimeRange()
		if err != nil {
			return 0, 0, false, err
		}
		if found {
			add(a, b)
		}
	}
	for _, path := range opt.WorkerLogs {
		id, named := sourcename.Parse(filepath.Base(path))
		if !named || id.IsFrontend() {
			continue
		}
		f, err := lineread.Open(path)
		if err != nil {
			return 0, 0, false, err
		}
		r, err := logmetric.Read(f, logmetric.SourceInfo{Path: path, Worker: id.Worker, Host: id.Host, Role: id.Role}, opt.Location, sglang.Generator{}, tokenspeed.Generator{})
		f.Close()
		if err != nil {
			return 0, 0, false, err
		}
		if r.Window != nil {
			add(r.Window.StartNS, r.Window.EndNS)
		}
	}
	return lo, hi, ok, nil
}
