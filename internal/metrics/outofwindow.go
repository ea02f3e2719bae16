package metrics

import (
	"fmt"
	"sort"

	"github.com/dsight/dsight/internal/logmetric"
)

// A wrong --iteration-timezone moves every log-derived point by hours, so
// almost all of them fall outside the run window and the clip drops them
// without a trace. windowLosses counts, per source, the log-metric points
// whose aligned time lies outside [originNS, lastNS] (settings carried into
// the window excepted: they are kept on purpose), and warns for each source
// most of whose points fall outside, naming the zone they were aligned in.
func windowLosses(merged *logmetric.Result, originNS, lastNS int64, zone string) (outside int64, warnings []string) {
	type count struct{ all, out int64 }
	per := map[string]*count{}
	for i := range merged.Series {
		s := &merged.Series[i]
		if s.Definition.Temporal == logmetric.TemporalSetting {
			continue
		}
		c := per[s.Source.Path]
		if c == nil {
			c = &count{}
			per[s.Source.Path] = c
		}
		for _, p := range s.Points {
			c.all++
			if p.TimeNS < originNS || p.TimeNS > lastNS {
				c.out++
			}
		}
	}
	paths := make([]string, 0, len(per))
	for p, c := range per {
		outside += c.out
		if c.all > 0 && 2*c.out > c.all {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		c := per[p]
		warnings = append(warnings, fmt.Sprintf("%d of %d log-metric points of %s fall outside the run window once aligned in %s and were not kept: check --iteration-timezone (the zone the worker logged in)", c.out, c.all, p, zone))
	}
	return outside, warnings
}
