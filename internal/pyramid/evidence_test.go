package pyramid

import (
	"slices"
	"testing"
)

// Every exact row keeps the evidence of the point it came from, through a
// shard round trip; a row formed from several points keeps the first's; a
// series built without evidence answers -1.
func TestRowEvidence(t *testing.T) {
	for _, temporal := range []Temporal{Sample, Event, Setting} {
		b, err := NewBuilder(Options{Temporal: temporal, Evidence: true, ChunkRows: 3})
		if err != nil {
			t.Fatal(err)
		}
		pts := []struct {
			t       int64
			v       float64
			src, ln int64
		}{{10, 1, 0, 5}, {20, 2, 0, 6}, {20, 2, 1, 9}, {30, 3, 2, 0}, {40, 4, 2, 1}, {50, 5, -1, -1}}
		for _, p := range pts {
			if err := b.AddFrom(p.t, p.v, false, p.src, p.ln); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := b.Finish().EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		p, err := DecodeShard(raw)
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.Query(0, 100, 100)
		if err != nil || !v.Exact {
			t.Fatalf("%v: view exact=%v err=%v", temporal, v != nil && v.Exact, err)
		}
		wantSrc, wantLn := []int64{0, 0, 2, 2, -1}, []int64{5, 6, 0, 1, -1}
		if temporal == Event { // every point is a row
			wantSrc, wantLn = []int64{0, 0, 1, 2, 2, -1}, []int64{5, 6, 9, 0, 1, -1}
		}
		if !slices.Equal(v.Sources, wantSrc) || !slices.Equal(v.Lines, wantLn) {
			t.Errorf("%v: evidence %v %v, want %v %v", temporal, v.Sources, v.Lines, wantSrc, wantLn)
		}
		rows, err := p.RowsAt(20)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 || rows[0].Source != 0 || rows[0].Line != 6 || rows[0].V != 2 || !rows[0].Valid {
			t.Errorf("%v: rows at 20 = %+v", temporal, rows)
		}
		if temporal == Event && (len(rows) != 2 || rows[1].Line != 9) {
			t.Errorf("event rows at 20 = %+v", rows)
		}
	}
	b, _ := NewBuilder(Options{})
	_ = b.AddFrom(1, 1, false, 3, 4)
	v, err := b.Finish().Query(0, 10, 10)
	if err != nil || !slices.Equal(v.Sources, []int64{-1}) || !slices.Equal(v.Lines, []int64{-1}) {
		t.Errorf("without evidence: %v %v %v", v.Sources, v.Lines, err)
	}
}
