package query

import (
	"math/rand/v2"
	"testing"

	"github.com/dsight/dsight/internal/pyramid"
)

// bisectedEnd is how firstRows found the end of the first MaxMetricPoints
// rows before RowTime: by bisection over the rows counted in [from, mid].
func bisectedEnd(t *testing.T, p *pyramid.Pyramid, fromNS, toNS, total int64) int64 {
	end := toNS
	if total > MaxMetricPoints {
		lo, hi := fromNS, toNS
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			st, _, err := p.Stats(fromNS, mid)
			if err != nil {
				t.Fatal(err)
			}
			if st.Count+st.Gaps <= MaxMetricPoints {
				lo = mid
			} else {
				hi = mid
			}
		}
		end = lo
	}
	return end
}

// The first rows of a range end where the bisection ended them, for
// events sharing timestamps (more than MaxMetricPoints at one, too),
// samples with gaps, ranges starting between rows, on a row, before the
// series and one nanosecond wide.
func TestFirstRowsEndWhereTheBisectionDid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 15))
	cut := 0
	for trial := range 30 {
		temporal := []pyramid.Temporal{pyramid.Event, pyramid.Sample, pyramid.Setting}[trial%3]
		b, err := pyramid.NewBuilder(pyramid.Options{Temporal: temporal, ChunkRows: 300 + rng.IntN(2000)})
		if err != nil {
			t.Fatal(err)
		}
		var times []int64
		at := rng.Int64N(1e6)
		for range 3000 + rng.IntN(6000) {
			switch {
			case temporal == pyramid.Event && rng.IntN(4) == 0: // same time
			case trial == 3 && len(times) < 1500: // 1,500 events at one time
			default:
				at += 1 + rng.Int64N(1<<rng.IntN(20))
			}
			if temporal != pyramid.Event && len(times) > 0 && times[len(times)-1] == at {
				continue
			}
			times = append(times, at)
			if err := b.Add(at, float64(rng.IntN(50)), rng.IntN(30) == 0); err != nil {
				t.Fatal(err)
			}
		}
		p := b.Finish()
		last := times[len(times)-1]
		for k := range 20 {
			from := times[rng.IntN(len(times))] + []int64{0, -1, 1}[k%3]
			switch k {
			case 0:
				from = times[0] - 5
			case 2: // on the first time (1,500 events there in trial 3)
				from = times[0]
			}
			to := from + rng.Int64N(last-from+2)
			if k == 1 {
				to = from + 1
			}
			st, _, err := p.Stats(from, to)
			if err != nil {
				t.Fatal(err)
			}
			total := st.Count + st.Gaps
			want := bisectedEnd(t, p, from, to, total)
			got, err := firstRowsEnd(p, from, to, total)
			if err != nil || got != want {
				t.Fatalf("trial %d (%s) %d..%d (%d rows): end %d, the bisection's %d (%v)", trial, temporal, from, to, total, got, want, err)
			}
			if total > MaxMetricPoints && want > from {
				cut++
			}
		}
	}
	if cut < 100 {
		t.Errorf("only %d ranges were cut inside", cut)
	}
}
