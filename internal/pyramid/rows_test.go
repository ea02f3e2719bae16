package pyramid

import (
	"math/rand/v2"
	"testing"
)

// ExactChunks and ExactChunk hand back every exact row, in order, as the
// brute-force reference forms them.
func TestExactRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	in := genSeries(rng, 30000)
	p := build(t, in, Options{Temporal: Sample})
	want := bruteRows(in, Sample)
	var got []row
	for k := range p.ExactChunks() {
		times, values, valid, err := p.ExactChunk(k)
		if err != nil {
			t.Fatal(err)
		}
		for i := range times {
			r := row{t: times[i], valid: valid[i]}
			if valid[i] {
				r.v = values[i]
			}
			got = append(got, r)
		}
	}
	if p.ExactChunks() < 2 || len(got) != len(want) {
		t.Fatalf("%d chunks, %d rows; want several chunks and %d rows", p.ExactChunks(), len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, _, _, err := p.ExactChunk(p.ExactChunks()); err == nil {
		t.Fatal("a chunk past the end gave no error")
	}
	p.Unload(0)
	if _, _, _, err := p.ExactChunk(0); err == nil {
		t.Fatal("an unloaded chunk gave no error")
	}
}
