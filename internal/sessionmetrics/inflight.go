package sessionmetrics

import (
	"slices"

	"github.com/dsight/dsight/internal/model"
)

// inFlight counts the requests between their start and end at every change:
// all of them, and split by recorded phase (when more than one is recorded)
// and by the server worker that served them (when server evidence joined).
// A request is in flight over [start, end); a zero-length request never is.
// The rows are computed as each series is summarized, one series at a time
// in buffers they share: a row at every change is two rows a request.
func inFlight(rs *reqs) []series {
	sc := &inFlightScratch{}
	rows := rs.rows
	all := func(yield func(k int)) {
		for k := range rows {
			yield(k)
		}
	}
	out := []series{sc.series(rows, all, "all requests", nil)}
	if len(rs.phases) > 1 {
		for _, p := range sortedStrings(rs.phases) {
			idx := int32(slices.Index(rs.phases, p))
			of := func(yield func(k int)) {
				for k := range rows {
					if rows[k].phase == idx {
						yield(k)
					}
				}
			}
			out = append(out, sc.series(rows, of, "phase "+p, []model.MetricLabel{{Key: "phase", Value: p}}))
		}
	}
	for _, w := range sortedStrings(mapKeys(rs.workers)) {
		served := rs.workers[w]
		of := func(yield func(k int)) {
			for _, k := range served {
				yield(int(k))
			}
		}
		labels := []model.MetricLabel{{Key: "worker", Value: w}}
		if role := rs.roles[w]; role != "" {
			labels = append(labels, model.MetricLabel{Key: "role", Value: role})
		}
		out = append(out, sc.series(rows, of, "served by "+w, labels))
	}
	return out
}

// inFlightScratch are the sort buffers the in-flight series share.
type inFlightScratch struct{ starts, ends, tmp []int64 }

// series is the in-flight series of the requests of, which it walks again
// when the series is summarized.
func (sc *inFlightScratch) series(rows []req, of func(yield func(k int)), label string, labels []model.MetricLabel) series {
	n := int64(0)
	of(func(k int) {
		if rows[k].end > rows[k].start {
			n++
		}
	})
	return series{family: famInFlight, label: label, labels: labels, rowCap: 2*n + 1,
		rows: func(add func(point)) { sc.count(rows, of, int(n), add) }}
}

// count adds the in-flight rows of the size requests of that last a while.
// Starts and ends are sorted apart and merged: two sorts of integers, not
// one of 2n events.
func (sc *inFlightScratch) count(rows []req, of func(yield func(k int)), size int, add func(point)) {
	if cap(sc.starts) < size {
		sc.starts, sc.ends = make([]int64, 0, size), make([]int64, 0, size)
	}
	starts, ends := sc.starts[:0], sc.ends[:0]
	of(func(k int) {
		if r := &rows[k]; r.end > r.start {
			starts, ends = append(starts, r.start), append(ends, r.end)
		}
	})
	sc.starts, sc.ends = starts, ends
	sc.tmp = sortInt64sWith(starts, sc.tmp)
	sc.tmp = sortInt64sWith(ends, sc.tmp)
	// The row at the origin holds the count once every change at 0 is in.
	last, started := point{}, false
	n, i, j := 0, 0, 0
	for i < len(starts) || j < len(ends) {
		t := ends[j] // every start precedes its end, so ends outlast starts
		if i < len(starts) && starts[i] < t {
			t = starts[i]
		}
		for ; i < len(starts) && starts[i] == t; i++ {
			n++
		}
		for ; j < len(ends) && ends[j] == t; j++ {
			n--
		}
		if t == 0 {
			last.V = float64(n)
			continue
		}
		if !started {
			add(last)
			started = true
		}
		if last.V != float64(n) {
			last = point{T: t, V: float64(n)}
			add(last)
		}
	}
	if !started {
		add(last)
	}
}

func mapKeys(m map[string][]int32) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sortedStrings(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return out
}
