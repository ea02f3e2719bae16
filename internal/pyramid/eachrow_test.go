package pyramid

import "testing"

// EachRow visits exactly the rows of a range, gaps included, across chunks.
func TestEachRow(t *testing.T) {
	b, err := NewBuilder(Options{Temporal: Setting, ChunkRows: 16})
	if err != nil {
		t.Fatal(err)
	}
	for k := range int64(100) {
		if err := b.Add(k*10, float64(k), k%9 == 0); err != nil {
			t.Fatal(err)
		}
	}
	p := b.Finish()
	var ts []int64
	gaps := 0
	if err := p.EachRow(95, 505, func(t int64, v float64, valid bool) {
		ts = append(ts, t)
		if !valid {
			gaps++
		} else if v != float64(t/10) {
			panic("value")
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(ts) != 41 || ts[0] != 100 || ts[40] != 500 || gaps != 4 { // k = 18, 27, 36 and 45 are gaps
		t.Fatalf("rows %d first %d last %d gaps %d", len(ts), ts[0], ts[len(ts)-1], gaps)
	}
}
