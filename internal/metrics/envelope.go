package metrics

import (
	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/tachometer"
)

// Envelope is the time range the metric sources themselves record, for runs
// without a client export: every row's timestamp_ns of capture c (nil: no
// capture), and the worker-log observations of logs (read with Generators)
// that carry a non-setting value (their timestamp plus its resolution;
// configuration alone never creates an envelope). ok is false when there is
// none. It reads no log again: the caller's one read of each worker log
// serves both the envelope and Read (Options.Logs); the capture's files are
// inspected once, and Read reuses the inspection.
func Envelope(c *tachometer.Capture, logs []*logmetric.Result) (lo, hi int64, ok bool, err error) {
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
	if c != nil && len(c.Files) > 0 {
		a, b, found, err := c.TimeRange()
		if err != nil {
			return 0, 0, false, err
		}
		if found {
			add(a, b)
		}
	}
	for _, r := range logs {
		if r.Window != nil {
			add(r.Window.StartNS, r.Window.EndNS)
		}
	}
	return lo, hi, ok, nil
}
