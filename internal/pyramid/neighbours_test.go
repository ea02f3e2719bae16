package pyramid

import "testing"

func TestFirstAtOrAfter(t *testing.T) {
	p := build(t, []input{{t: -10, v: 8}, {t: 5, null: true}, {t: 9, v: 16}, {t: 12, v: 17}}, Options{Temporal: Sample, ChunkRows: 1})
	tests := []struct {
		at           int64
		want         Point
		valid, found bool
	}{
		{-11, Point{-10, 8}, true, true},
		{-10, Point{-10, 8}, true, true},
		{-9, Point{5, 0}, false, true},
		{6, Point{9, 16}, true, true},
		{10, Point{12, 17}, true, true},
		{13, Point{}, false, false},
	}
	for _, tc := range tests {
		row, valid, found, err := p.FirstAtOrAfter(tc.at)
		if err != nil || row != tc.want || valid != tc.valid || found != tc.found {
			t.Errorf("at %d: %v %v %v %v, want %v %v %v", tc.at, row, valid, found, err, tc.want, tc.valid, tc.found)
		}
	}
}
