package pyramid

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// SortedValues gives exactly the sorted valid values of the range's rows:
// random series (duplicates, gaps, sign changes) over many small chunks,
// random ranges, asked twice (the second from the cached runs) and after a
// chunk is dropped (named as missing, then the same answer once reloaded).
func TestSortedValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 16))
	for trial := range 60 {
		in := genSeries(rng, 1+rng.IntN(3000))
		p := build(t, in, Options{Temporal: Sample, ChunkRows: 16 << rng.IntN(4)})
		rows := bruteRows(in, Sample)
		for range 20 {
			from, to := randomRange(rng, rows)
			if rng.IntN(5) == 0 {
				from, to = -1<<62, 1<<62
			}
			var want []float64
			if err := p.EachRow(from, to, func(_ int64, v float64, valid bool) {
				if valid {
					want = append(want, v)
				}
			}); err != nil {
				t.Fatal(err)
			}
			slices.Sort(want)
			for pass := range 2 {
				got, err := p.SortedValues(from, to)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Fatalf("trial %d pass %d [%d, %d]: %d values, want %d", trial, pass, from, to, len(got), len(want))
				}
			}
		}
	}
}

func TestSortedValuesMissingChunk(t *testing.T) {
	in := genSeries(rand.New(rand.NewPCG(1, 2)), 500)
	p := build(t, in, Options{Temporal: Sample, ChunkRows: 16})
	if _, err := p.SortedValues(-1<<62, 1<<62); err != nil || p.sorted[1].Load() == nil {
		t.Fatalf("a covered chunk's run is not kept: %v", err)
	}
	p.Unload(1)
	var inc *IncompleteError
	if _, err := p.SortedValues(-1<<62, 1<<62); !errors.As(err, &inc) || !slices.Contains(inc.Chunks, 1) {
		t.Fatalf("a dropped chunk: %v", err)
	}
	if p.sorted[1].Load() != nil || p.sortedAll().Load() != nil {
		t.Fatal("a dropped chunk keeps its sorted run")
	}
}
