package metrics

import (
	"fmt"

	"github.com/dsight/dsight/internal/pyramid"
)

// captureRun is how many points of a series go to the builder per call: a
// run's shifted times and source ids stay in cache, and the scratch they
// take does not grow with the series.
const captureRun = 4096

// runScratch holds one run's times from the origin and source ids.
type runScratch struct {
	times, sources []int64
}

// addPoints adds series i's loaded points to b in runs, each with its
// evidence: the pair's source id in the report's manifest (-1 for a source
// the read does not know) and its row, or -1s when the store kept none.
func (cs *captureSummary) addPoints(b *pyramid.Builder, sc *loadScratch, rs *runScratch, i int, t []int64, v []float64) error {
	n := len(t)
	withEvidence := len(sc.sources) == n && len(sc.rows) == n
	for lo := 0; lo < n; lo += captureRun {
		hi := min(n, lo+captureRun)
		rs.times = rs.times[:0]
		for _, x := range t[lo:hi] {
			rs.times = append(rs.times, x-cs.opt.OriginNS)
		}
		pts := pyramid.Points{T: rs.times, V: v[lo:hi]}
		if withEvidence {
			rs.sources = rs.sources[:0]
			for _, f := range sc.sources[lo:hi] {
				id := int64(-1)
				if f >= 0 && f < int64(len(cs.sourceIDs)) {
					id = int64(cs.sourceIDs[f])
				}
				rs.sources = append(rs.sources, id)
			}
			pts.Source, pts.Row = rs.sources, sc.rows[lo:hi]
		}
		if err := b.AddPoints(pts); err != nil {
			return fmt.Errorf("capture series %s: %w", cs.infos[i].RawName, err)
		}
	}
	return nil
}
