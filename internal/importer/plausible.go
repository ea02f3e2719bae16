package importer

import (
	"fmt"
	"slices"
	"time"

	"github.com/dsight/dsight/internal/model"
)

// maxClientSpread is the plausibility rule for client times: every request
// starts and ends within seven days of the run's median request start. A
// benchmark run lasts hours; one bogus timestamp (request_start_ns=1, a row
// in 2261) would otherwise stretch the window over decades and squeeze
// every real request into the last pixel.
const maxClientSpread = 7 * 24 * time.Hour

// checkPlausible refuses the first request outside the rule, naming its row.
func checkPlausible(d *model.Dataset, requests []model.Request) error {
	if len(requests) == 0 {
		return nil
	}
	starts := make([]int64, len(requests))
	for i, r := range requests {
		starts[i] = r.StartNS
	}
	slices.Sort(starts)
	med := starts[len(starts)/2]
	spread := int64(maxClientSpread)
	lo, hi := med-spread, med+spread
	if med < 0 {
		lo = min(lo, med) // no overflow below the int64 range
	}
	for _, r := range requests {
		if r.StartNS >= lo && r.EndNS <= hi {
			continue
		}
		path := fmt.Sprint("source ", r.Evidence.Source)
		for _, s := range d.Sources {
			if s.ID == r.Evidence.Source {
				path = s.Path
			}
		}
		return fmt.Errorf("%s:%d: request %q runs from %s to %s, more than %d days from the run's median request start %s; not a plausible time for this run: fix or remove the row",
			path, r.Evidence.Line, r.ID, utc(r.StartNS), utc(r.EndNS), int(maxClientSpread/(24*time.Hour)), utc(med))
	}
	return nil
}

func utc(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
