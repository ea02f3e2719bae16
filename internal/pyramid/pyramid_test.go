package pyramid

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkView verifies a view against the brute-force rows: exact statistics,
// exact buckets, the level choice, and an envelope that is made of real
// samples and never misses a pixel column's extremes.
func checkView(t *testing.T, what string, p *Pyramid, rows []row, v *View) {
	t.Helper()
	from, to, px := v.From, v.To, v.Pixels
	if !sameStats(t, what, v.Stats, bruteStats(rows, from, to)) {
		return
	}
	var in []row
	for _, r := range rows {
		if r.t >= from && r.t <= to {
			in = append(in, r)
		}
	}
	if v.Exact != (len(in) <= 2*px) {
		t.Fatalf("%s: exact = %v with %d rows for %d pixels", what, v.Exact, len(in), px)
	}
	if v.Exact {
		if len(v.Times) != len(in) {
			t.Fatalf("%s: %d points, want %d rows", what, len(v.Times), len(in))
		}
		for i, r := range in {
			if v.Times[i] != r.t || v.Valid[i] != r.valid || r.valid && v.Values[i] != r.v {
				t.Fatalf("%s: point %d = (%d %v %v), want %+v", what, i, v.Times[i], v.Values[i], v.Valid[i], r)
			}
		}
		if v.Read.Rows != int64(len(in)) || v.Read.Buckets != 0 {
			t.Errorf("%s: exact view read %+v for %d rows", what, v.Read, len(in))
		}
		return
	}
	// span = to - from + 1 may be 2^64: compute in big integers.
	span := new(big.Int).Sub(big.NewInt(to), big.NewInt(from))
	span.Add(span, big.NewInt(1))
	perBucket := func(shift int) int64 { return new(big.Int).Rsh(span, uint(shift)).Int64() }
	if perBucket(v.Shift) < 2*int64(px) || perBucket(v.Shift+1) >= 2*int64(px) {
		t.Fatalf("%s: shift %d is not the coarsest with ≥ 2 buckets per pixel (span %d, %d px)", what, v.Shift, span, px)
	}
	// Buckets: exactly the non-empty ones, each exact.
	var keys []int64
	for _, r := range in {
		if k := r.t >> v.Shift; len(keys) == 0 || keys[len(keys)-1] != k {
			keys = append(keys, k)
		}
	}
	if len(keys) != len(v.Buckets) {
		t.Fatalf("%s: %d buckets, want %d", what, len(v.Buckets), len(keys))
	}
	for i, b := range v.Buckets {
		s := keys[i] << v.Shift
		e := s | bucketMask(uint(v.Shift))
		if b.Start != max(from, s) || b.End != min(to, e) {
			t.Fatalf("%s: bucket %d spans %d..%d, want %d..%d", what, i, b.Start, b.End, max(from, s), min(to, e))
		}
		if !sameStats(t, what, b.Stats, bruteStats(rows, b.Start, b.End)) {
			return
		}
	}
	// Plot points are real rows, in time order.
	for i := range v.Times {
		j := slices.IndexFunc(in, func(r row) bool {
			return r.t == v.Times[i] && r.valid == v.Valid[i] && (!r.valid || r.v == v.Values[i])
		})
		if j < 0 {
			t.Fatalf("%s: plot point (%d, %v, %v) is not a recorded row", what, v.Times[i], v.Values[i], v.Valid[i])
		}
		if i > 0 && v.Times[i] < v.Times[i-1] || i > 0 && v.Times[i] == v.Times[i-1] && p.temporal != Event {
			t.Fatalf("%s: plot times not increasing at %d", what, i)
		}
	}
	// Each pixel column's true extremes appear within one bucket of it.
	width := int64(1) << v.Shift
	for c := 0; c < px; c++ {
		edge := func(c int) int64 {
			off := new(big.Int).Mul(span, big.NewInt(int64(c)))
			off.Div(off, big.NewInt(int64(px)))
			return off.Add(off, big.NewInt(from)).Int64()
		}
		cs, ce := edge(c), edge(c+1)-1
		col := bruteStats(rows, cs, ce)
		if col.Count == 0 {
			continue
		}
		lowOK, highOK := false, false
		for i, tt := range v.Times {
			if !v.Valid[i] || tt < cs && cs-tt > width || tt > ce && tt-ce > width {
				continue
			}
			lowOK = lowOK || v.Values[i] <= col.Min.V
			highOK = highOK || v.Values[i] >= col.Max.V
		}
		if !lowOK || !highOK {
			t.Fatalf("%s: column %d [%d, %d] min %v max %v not reached by the envelope", what, c, cs, ce, col.Min.V, col.Max.V)
		}
	}
	// Gaps survive: every bucket with a gap row plots a gap point.
	gapPoints := 0
	for _, ok := range v.Valid {
		if !ok {
			gapPoints++
		}
	}
	gapBuckets := 0
	for _, b := range v.Buckets {
		if b.Gaps > 0 {
			gapBuckets++
		}
	}
	if gapPoints != gapBuckets {
		t.Fatalf("%s: %d gap points for %d buckets holding gaps", what, gapPoints, gapBuckets)
	}
	// Reads stay bounded: per bucket at most a few small buckets' rows.
	limit := int64(16*p.minRows)*int64(len(v.Buckets)+2) + int64(8*p.minRows*(len(p.levels)+1))
	if v.Read.Rows > limit {
		t.Errorf("%s: read %d rows for %d buckets (bound %d)", what, v.Read.Rows, len(v.Buckets), limit)
	}
}

func TestQueryMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		n := rng.IntN(3000)
		if iter < 20 {
			n = iter // tiny series, including empty and single-sample
		}
		temporal := Temporal(rng.IntN(3))
		opts := Options{Temporal: temporal, MinBucketRows: 1 + rng.IntN(12), ChunkRows: 3 + rng.IntN(60)}
		in := genSeries(rng, n)
		rows := bruteRows(in, temporal)
		p := build(t, in, opts)
		if p.Rows() != int64(len(rows)) {
			t.Fatalf("iter %d: %d rows, want %d", iter, p.Rows(), len(rows))
		}
		for q := 0; q < 40; q++ {
			from, to := randomRange(rng, rows)
			px := 1 + rng.IntN(120)
			v, err := p.Query(from, to, px)
			if err != nil {
				t.Fatal(err)
			}
			checkView(t, "query", p, rows, v)
			s, _, err := p.Stats(from, to)
			if err != nil {
				t.Fatal(err)
			}
			sameStats(t, "stats", s, bruteStats(rows, from, to))
			if t.Failed() {
				t.Fatalf("iter %d (n=%d %v %+v) query %d: [%d, %d] %d px", iter, n, temporal, opts, q, from, to, px)
			}
		}
	}
}

func TestGapsStayGaps(t *testing.T) {
	var in []input
	for i := 0; i < 1000; i++ {
		in = append(in, input{t: int64(i) * 1000, v: float64(i % 7), null: i == 500})
	}
	in = append(in, input{t: 1_000_000, v: 1}, input{t: 1_000_000, v: 2}) // conflict
	p := build(t, in, Options{MinBucketRows: 4})
	for _, px := range []int{1, 10, 100, 2000} {
		v, err := p.Query(0, 1_000_000, px)
		if err != nil {
			t.Fatal(err)
		}
		if v.Stats.Gaps != 2 || v.Stats.Count != 999 {
			t.Errorf("%d px: %d samples, %d gaps; want 999 and 2", px, v.Stats.Count, v.Stats.Gaps)
		}
		var gapTimes []int64
		for i, ok := range v.Valid {
			if !ok {
				gapTimes = append(gapTimes, v.Times[i])
			}
		}
		if len(gapTimes) == 0 || gapTimes[0] != 500_000 || v.Exact && len(gapTimes) != 2 {
			t.Errorf("%d px: gap points at %v, want one at 500000 (and the conflict at 1000000)", px, gapTimes)
		}
	}
}

func TestEmptyAndSingle(t *testing.T) {
	empty := build(t, nil, Options{})
	v, err := empty.Query(0, 100, 10)
	if err != nil || !v.Exact || v.Stats.Count != 0 || len(v.Times) != 0 {
		t.Errorf("empty: %+v %v", v, err)
	}
	one := build(t, []input{{t: 42, v: 3.5}}, Options{MinBucketRows: 1})
	if len(one.levels) == 0 {
		t.Error("a single row with MinBucketRows 1 should still get a level")
	}
	for _, rg := range [][2]int64{{0, 100}, {42, 42}, {43, 100}, {-1 << 62, 1 << 62}} {
		v, err := one.Query(rg[0], rg[1], 1)
		if err != nil {
			t.Fatal(err)
		}
		want := rg[0] <= 42 && 42 <= rg[1]
		if (v.Stats.Count == 1) != want || want && (v.Stats.Max != Point{42, 3.5} || v.Stats.First != v.Stats.Last) {
			t.Errorf("single %v: %+v", rg, v.Stats)
		}
	}
	if _, err := one.Query(5, 4, 10); err == nil {
		t.Error("reversed range: no error")
	}
	if _, err := one.Query(4, 5, 0); err == nil {
		t.Error("zero pixels: no error")
	}
}

func TestWholeInt64Range(t *testing.T) {
	in := []input{{t: -1 << 63, v: 1}, {t: -5, v: 2}, {t: 0, v: 3}, {t: 1<<63 - 1, v: 4}}
	rows := bruteRows(in, Sample)
	p := build(t, in, Options{MinBucketRows: 1})
	for _, px := range []int{1, 2, 3} {
		v, err := p.Query(-1<<63, 1<<63-1, px)
		if err != nil {
			t.Fatal(err)
		}
		checkView(t, "whole range", p, rows, v)
	}
}

func TestAddRejectsTimeGoingBack(t *testing.T) {
	b, _ := NewBuilder(Options{})
	if err := b.Add(10, 1, false); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(9, 1, false); err == nil {
		t.Error("time going back: no error")
	}
	b.Finish()
	if err := b.Add(11, 1, false); err == nil {
		t.Error("add after finish: no error")
	}
}

func TestIncompleteNamesChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	in := genSeries(rng, 5000)
	p := build(t, in, Options{MinBucketRows: 4, ChunkRows: 64})
	lay, err := p.Tables()
	if err != nil {
		t.Fatal(err)
	}
	q, err := Open(&lay.Header, &lay.Index)
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.Query(in[0].t, in[len(in)-1].t, 50)
	var inc *IncompleteError
	if !errors.As(err, &inc) || len(inc.Chunks) == 0 {
		t.Fatalf("query on an unloaded pyramid: %v", err)
	}
	// A loaded pyramid answers; unloading a chunk it reads makes it ask again.
	for id := 0; id < q.ChunkCount(); id++ {
		if err := q.Load(id, &lay.Chunks[id]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Query(in[0].t, in[len(in)-1].t, 50); err != nil {
		t.Fatal(err)
	}
	q.Unload(0)
	_, err = q.Query(in[0].t, in[len(in)-1].t, 50)
	if !errors.As(err, &inc) || !slices.Contains(inc.Chunks, 0) {
		t.Fatalf("after Unload(0): %v", err)
	}
}

func TestLastAtOrBefore(t *testing.T) {
	p := build(t, []input{{t: -10, v: 8}, {t: 5, null: true}, {t: 9, v: 16}, {t: 9, v: 16}}, Options{Temporal: Setting, ChunkRows: 1})
	tests := []struct {
		at           int64
		want         Point
		valid, found bool
	}{
		{-11, Point{}, false, false},
		{-10, Point{-10, 8}, true, true},
		{4, Point{-10, 8}, true, true},
		{5, Point{5, 0}, false, true},
		{8, Point{5, 0}, false, true},
		{100, Point{9, 16}, true, true},
	}
	for _, tc := range tests {
		row, valid, found, err := p.LastAtOrBefore(tc.at)
		if err != nil || row != tc.want || valid != tc.valid || found != tc.found {
			t.Errorf("at %d: %v %v %v %v, want %v %v %v", tc.at, row, valid, found, err, tc.want, tc.valid, tc.found)
		}
	}
}
