package sqlstore

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// spillStarts writes starts as the join spills them: each one's bits, in
// rowid order.
func spillStarts(t *testing.T, starts []float64) *os.File {
	t.Helper()
	b := make([]byte, 8*len(starts))
	for i, s := range starts {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(s))
	}
	p := filepath.Join(t.TempDir(), "starts")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// The starts sorted in runs and merged with the spans added after them
// are every start in compareStarts order, as one sort in memory gives
// them: with one run or many, runs of one start, a last run shorter than
// the others, ties on start (broken by rowid) within a run, across runs
// and with the added spans, and either side empty. A second merge of the
// same runs gives the same.
func TestStartRunsMergeAsOneSort(t *testing.T) {
	defer func(n int64) { startRunLen = n }(startRunLen)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := rng.IntN(200)
		if trial%10 == 0 {
			n = 0
		}
		startRunLen = int64(1 + rng.IntN(40))
		if trial%7 == 0 {
			startRunLen = 1
		}
		distinct := 1 + rng.IntN(12)
		spilled := make([]float64, n)
		var want []spanStart
		for i := range spilled {
			spilled[i] = float64(rng.IntN(distinct)) - 3.5
			want = append(want, spanStart{spilled[i], int64(i)})
		}
		var extra []spanStart
		if trial%3 != 0 {
			for i := range rng.IntN(30) {
				s := spanStart{float64(rng.IntN(distinct)) - 3.5, int64(n + i)}
				extra = append(extra, s)
				want = append(want, s)
			}
		}
		slices.SortFunc(extra, compareStarts)
		slices.SortFunc(want, compareStarts)
		runs, err := sortRuns(spillStarts(t, spilled), int64(n), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			var got []spanStart
			if err := runs.each(extra, func(s spanStart) error { got = append(got, s); return nil }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%d starts in runs of %d, %d added: merged %v, want %v", n, startRunLen, len(extra), got, want)
			}
		}
		if err := runs.close(); err != nil {
			t.Fatal(err)
		}
	}
	var got []spanStart
	if err := (*startRuns)(nil).each([]spanStart{{1, 0}, {2, 1}}, func(s spanStart) error { got = append(got, s); return nil }); err != nil || len(got) != 2 {
		t.Fatalf("no runs: %v, %v", got, err)
	}
}

// A spill shorter than the starts counted is an error, not a short index.
func TestStartRunsOfAShortSpillAreAnError(t *testing.T) {
	if _, err := sortRuns(spillStarts(t, []float64{1, 2, 3}), 4, t.TempDir()); err == nil {
		t.Fatal("four starts sorted from a spill of three")
	}
}

// The store laid out from the join's rows with the starts sorted in many
// runs is byte for byte the one read from the dataset.
func TestEvidenceRowsInManyStartRuns(t *testing.T) {
	defer func(n int64) { startRunLen = n }(startRunLen)
	startRunLen = 97
	rows := NewEvidenceRows(t.TempDir())
	defer rows.Close()
	d := tracedDatasetTapped(t, rows)
	if n := rows.p.nspans; n < 10*startRunLen {
		t.Fatalf("only %d spans", n)
	}
	if st := writeBoth(t, d, rows); !st.EvidenceFromJoin {
		t.Fatal("the store read the evidence again rather than the rows the join encoded")
	}
}
