package sessionmetrics

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// A coarse interval's percentiles merged from the finer intervals' sorted
// values equal those sorted afresh: run lengths on and off an interval
// boundary, times before the origin and after the end (clamped), ties.
func TestPercentilesCoarsenedEqualSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, duration := range []int64{1, 999e6, 60e9, 60e9 + 1, 187e9, 3601e9 + 7} {
		vals := make([]tv, 20_000)
		for k := range vals {
			vals[k] = tv{t: rng.Int64N(duration+4e9) - 2e9, v: float64(rng.IntN(300)) / 7}
		}
		var finer *binned
		for _, w := range PercentileIntervalsNS {
			got, b := percentiles(famLatency, vals, finer, duration, w)
			want, _ := percentiles(famLatency, vals, nil, duration, w)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("duration %d width %d: merged intervals differ from sorted ones", duration, w)
			}
			finer = b
		}
	}
}
