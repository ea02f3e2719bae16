package pyramid

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bulkSeries is a series with every case the builder folds: equal times
// that agree and disagree, nulls, NaN and infinities, idle stretches, and
// evidence with unknowns.
func bulkSeries(rng *rand.Rand, n int) Points {
	p := Points{T: make([]int64, n), V: make([]float64, n), Null: make([]bool, n), Source: make([]int64, n), Row: make([]int64, n)}
	t := int64(rng.IntN(1000)) - 500
	v := 10.0
	for i := range n {
		switch rng.IntN(10) {
		case 0: // same time
		case 1:
			t += int64(rng.IntN(1 << 20))
		default:
			t += 1 + int64(rng.IntN(2000))
		}
		if rng.IntN(3) > 0 {
			v += float64(rng.IntN(5) - 2)
		}
		p.T[i], p.V[i] = t, v
		switch rng.IntN(40) {
		case 0:
			p.Null[i] = true
		case 1:
			p.V[i] = math.NaN()
		case 2:
			p.V[i] = math.Inf(1)
		}
		p.Source[i], p.Row[i] = int64(rng.IntN(3))-1, int64(i)
		if rng.IntN(50) == 0 {
			p.Row[i] = -7
		}
	}
	return p
}

func (p Points) slice(i, j int) Points {
	return Points{T: p.T[i:j], V: p.V[i:j], Null: p.Null[i:j], Source: p.Source[i:j], Row: p.Row[i:j]}
}

// TestAddPointsMatchesAddFrom builds every temporal, with and without
// evidence and a limit, point by point and in runs of random lengths, and
// requires the same encoded summary.
func TestAddPointsMatchesAddFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	lim, err := NewBuilder(Options{Temporal: Setting})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		lim.Add(int64(i)*40_000-1000, float64(50+i%7), false)
	}
	limit := lim.Finish()
	for trial := range 60 {
		n := []int{0, 1, 2, 5, 17, 300, 5000, 40_000}[trial%8]
		pts := bulkSeries(rng, n)
		opts := Options{
			Temporal:      []Temporal{Sample, Event, Setting}[trial%3],
			MinBucketRows: []int{1, 2, 3, 16}[trial/3%4],
			ChunkRows:     []int{0, 7, 100}[trial/12%3],
			Evidence:      trial%5 != 4,
		}
		if n > 300 { // a shard holds at most 4,096 tables
			opts.ChunkRows = 0
		}
		switch trial % 7 {
		case 3:
			opts.Points = int64(n)
		case 6: // too few: chunks regrow
			opts.Points = int64(n/3 + 1)
		}
		if trial%11 == 5 && opts.Temporal != Event {
			opts.Limit = limit
		}
		name := fmt.Sprintf("%d/n=%d/%+v", trial, n, opts)
		one, err := NewBuilder(opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := one.AddFrom(pts.T[i], pts.V[i], pts.Null[i], pts.Source[i], pts.Row[i]); err != nil {
				t.Fatal(err)
			}
		}
		bulk, _ := NewBuilder(opts)
		for i := 0; i < n; {
			j := min(n, i+1+rng.IntN(3000))
			if rng.IntN(4) == 0 { // mixing both ways of adding changes nothing
				for k := i; k < j; k++ {
					bulk.AddFrom(pts.T[k], pts.V[k], pts.Null[k], pts.Source[k], pts.Row[k])
				}
			} else if err := bulk.AddPoints(pts.slice(i, j)); err != nil {
				t.Fatal(err)
			}
			i = j
		}
		want, err := one.Finish().EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		got, err := bulk.Finish().EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: AddPoints built a different summary than AddFrom", name)
		}
	}
}

// TestAddPointsOptionalColumns: nil Null, Source and Row mean no null and
// unknown evidence.
func TestAddPointsOptionalColumns(t *testing.T) {
	one, _ := NewBuilder(Options{Evidence: true, MinBucketRows: 2})
	bulk, _ := NewBuilder(Options{Evidence: true, MinBucketRows: 2})
	pts := Points{T: []int64{1, 2, 2, 5, 9, 9}, V: []float64{1, 2, 2, 3, 4, 5}}
	for i := range pts.T {
		one.Add(pts.T[i], pts.V[i], false)
	}
	if err := bulk.AddPoints(pts); err != nil {
		t.Fatal(err)
	}
	want, _ := one.Finish().EncodeShard()
	got, _ := bulk.Finish().EncodeShard()
	if !bytes.Equal(got, want) {
		t.Fatal("nil optional columns differ from Add")
	}
}

// TestAddPointsErrors: a decreasing time adds the points before it and
// fails as AddFrom does; mismatched columns and adding after Finish fail.
func TestAddPointsErrors(t *testing.T) {
	one, _ := NewBuilder(Options{Evidence: true})
	bulk, _ := NewBuilder(Options{Evidence: true})
	pts := Points{T: []int64{5, 6, 4, 7}, V: []float64{1, 2, 3, 4}}
	var wantErr error
	for i := range pts.T {
		if wantErr = one.Add(pts.T[i], pts.V[i], false); wantErr != nil {
			break
		}
	}
	err := bulk.AddPoints(pts)
	if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Fatalf("AddPoints error %v, AddFrom's %v", err, wantErr)
	}
	if err := bulk.AddPoints(Points{T: []int64{3}, V: []float64{1}}); err == nil {
		t.Fatal("a time before the last added point was accepted")
	}
	want, _ := one.Finish().EncodeShard()
	got, _ := bulk.Finish().EncodeShard()
	if !bytes.Equal(got, want) {
		t.Fatal("the points before a decreasing time differ from AddFrom's")
	}
	b, _ := NewBuilder(Options{})
	if b.AddPoints(Points{T: []int64{1, 2}, V: []float64{1}}) == nil {
		t.Fatal("columns of different lengths were accepted")
	}
	b.Finish()
	if b.AddPoints(Points{T: []int64{1}, V: []float64{1}}) == nil {
		t.Fatal("AddPoints after Finish was accepted")
	}
}

// TestAddRowsMatchesAddRow folds random runs of a chunk into summaries that
// already hold rows, with and without limits, and requires what addRow gives
// row by row, the float sum included.
func TestAddRowsMatchesAddRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(60)
		c := &exactChunk{times: make([]int64, n), values: make([]float64, n), valid: make([]bool, n)}
		if trial%2 == 1 {
			c.limits, c.limitOK = make([]float64, n), make([]bool, n)
		}
		for k := range n {
			c.times[k] = int64(k * 3)
			c.values[k] = float64(rng.IntN(7)-3) + 0.1*float64(rng.IntN(10))
			c.valid[k] = rng.IntN(6) > 0
			if c.limitOK != nil {
				c.limits[k], c.limitOK[k] = float64(1+rng.IntN(4)), rng.IntN(3) > 0
			}
		}
		i := rng.IntN(n)
		j := i + rng.IntN(n-i+1)
		var want, got summary
		for k := range i / 2 { // rows already in the bucket
			lim, ok := 0.0, false
			if c.limitOK != nil {
				lim, ok = c.limits[k], c.limitOK[k]
			}
			want.addRow(c.times[k], c.values[k], c.valid[k], lim, ok)
		}
		got = want
		for k := i; k < j; k++ {
			lim, ok := 0.0, false
			if c.limitOK != nil {
				lim, ok = c.limits[k], c.limitOK[k]
			}
			want.addRow(c.times[k], c.values[k], c.valid[k], lim, ok)
		}
		addRows(&got, c, i, j)
		if got != want {
			t.Fatalf("trial %d rows %d..%d: addRows %+v, addRow %+v", trial, i, j, got, want)
		}
	}
}

// TestRecycleKeepsResults: builders that take a recycled pyramid's chunks
// build what fresh ones build, and the recycled pyramid's encoded shard is
// untouched.
func TestRecycleKeepsResults(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	opts := Options{Evidence: true, ChunkRows: 64, MinBucketRows: 4}
	build := func(p Points) []byte {
		b, _ := NewBuilder(opts)
		if err := b.AddPoints(p); err != nil {
			t.Fatal(err)
		}
		raw, err := b.Finish().EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	series := make([]Points, 6)
	want := make([][]byte, len(series))
	for i := range series {
		series[i] = bulkSeries(rng, 200+rng.IntN(800))
		if i%2 == 1 { // no evidence: the recycled columns must not show through
			series[i].Source, series[i].Row, series[i].Null = nil, nil, nil
		}
		want[i] = build(series[i])
	}
	for i := range series {
		b, _ := NewBuilder(opts)
		if err := b.AddPoints(series[i]); err != nil {
			t.Fatal(err)
		}
		p := b.Finish()
		raw, err := p.EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		kept := bytes.Clone(raw)
		p.Recycle()
		if !bytes.Equal(raw, kept) || !bytes.Equal(raw, want[i]) {
			t.Fatalf("series %d: encoded bytes changed by Recycle or differ from a fresh build", i)
		}
		// The next series reuses these chunks, point by point and in runs.
		next := series[(i+1)%len(series)]
		one, _ := NewBuilder(opts)
		for k := range next.T {
			null := next.Null != nil && next.Null[k]
			src, row := int64(-1), int64(-1)
			if next.Source != nil {
				src, row = next.Source[k], next.Row[k]
			}
			one.AddFrom(next.T[k], next.V[k], null, src, row)
		}
		p1 := one.Finish()
		got, _ := p1.EncodeShard()
		if !bytes.Equal(got, want[(i+1)%len(series)]) {
			t.Fatalf("series %d: a builder on recycled chunks built a different summary", i+1)
		}
		p1.Recycle()
	}
}
