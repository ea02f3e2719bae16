package query

import (
	"slices"
	"testing"
)

// A window shorter than the sampling interval plots the rows on either
// side (outside the window) and counts none of them.
func TestMetricPlotNeighbours(t *testing.T) {
	e, payloads := metricEngine(t)
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	step := fixture().Meta.DurationNS / 1500
	row := func(k int64) [2]float64 { return [2]float64{seconds(k * step), float64(k % 7)} }
	for _, tc := range []struct {
		name     string
		from, to float64
		rows     []int64 // the points drawn, by row number
		samples  int64
	}{
		{"between two rows", seconds(10*step) + 1e-6, seconds(11*step) - 1e-6, []int64{10, 11}, 0},
		{"around one row", seconds(10*step) + 1e-6, seconds(11*step) + 1e-6, []int64{10, 11, 12}, 1},
		{"from the first row", 0, seconds(2 * step), []int64{0, 1, 2, 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, to := tc.from, tc.to
			p, err := e.MetricPlot(PlotRequest{From: &from, To: &to, Pixels: 200, Series: []int{0}})
			if err != nil {
				t.Fatal(err)
			}
			s := p.Series[0]
			if s.Samples != tc.samples || s.Flags&PlotExact == 0 {
				t.Fatalf("samples %d (want %d), flags %d", s.Samples, tc.samples, s.Flags)
			}
			var got, want [][2]float64
			for k := range s.Times {
				got = append(got, [2]float64{s.Times[k], s.Values[k]})
			}
			for _, k := range tc.rows {
				want = append(want, row(k))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("points %v, want %v", got, want)
			}
		})
	}
}
