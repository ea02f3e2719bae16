package pyramid

import (
	"math"
	"math/rand/v2"
	"testing"
)

// input is one point as fed to a Builder.
type input struct {
	t    int64
	v    float64
	null bool
}

// row is one exact row as the brute-force reference forms it.
type row struct {
	t     int64
	v     float64
	valid bool
}

// bruteRows applies the timestamp-group rules independently of the Builder.
func bruteRows(in []input, temporal Temporal) []row {
	var out []row
	for i := 0; i < len(in); {
		j := i + 1
		if temporal != Event {
			for j < len(in) && in[j].t == in[i].t {
				j++
			}
		}
		valid := true
		for _, p := range in[i:j] {
			if p.null || math.IsNaN(p.v) || math.IsInf(p.v, 0) || p.v != in[i].v {
				valid = false
			}
		}
		r := row{t: in[i].t, valid: valid}
		if valid {
			r.v = in[i].v
		}
		out = append(out, r)
		i = j
	}
	return out
}

// bruteStats scans rows sequentially.
func bruteStats(rows []row, from, to int64) Stats {
	var s Stats
	for _, r := range rows {
		if r.t < from || r.t > to {
			continue
		}
		if !r.valid {
			s.Gaps++
			continue
		}
		p := Point{r.t, r.v}
		if s.Count == 0 {
			s.First, s.Min, s.Max = p, p, p
		}
		if r.v < s.Min.V {
			s.Min = p
		}
		if r.v > s.Max.V {
			s.Max = p
		}
		s.Last = p
		s.Sum += r.v
		s.Count++
	}
	return s
}

// sameStats compares exactly, except Sum, which may differ in its last bits.
func sameStats(t *testing.T, what string, got, want Stats) bool {
	t.Helper()
	g, w := got, want
	g.Sum, w.Sum = 0, 0
	if g != w {
		t.Errorf("%s: stats\n got %+v\nwant %+v", what, got, want)
		return false
	}
	if tol := 1e-9 * (1 + math.Abs(want.Sum)) * float64(want.Count+1); math.Abs(got.Sum-want.Sum) > tol {
		t.Errorf("%s: sum %v, want %v", what, got.Sum, want.Sum)
		return false
	}
	return true
}

// genSeries makes a series with bursts, idle stretches, repeated and
// conflicting timestamps and nulls, in time order.
func genSeries(rng *rand.Rand, n int) []input {
	out := make([]input, 0, n)
	t := rng.Int64N(1<<40) - 1<<39
	if rng.IntN(8) == 0 {
		t = -rng.Int64N(1 << 20) // around zero: sign changes
	}
	spacing := int64(1) << rng.IntN(24)
	levels := []float64{0, 1, 2, 4, 8, 16, -3, 0.5}
	for len(out) < n {
		switch rng.IntN(40) {
		case 0:
			spacing = int64(1) << rng.IntN(28) // a new density
		case 1:
			t += rng.Int64N(1 << 34) // an idle stretch
		}
		t += rng.Int64N(spacing + 1)
		v := float64(rng.IntN(100)) - 30
		if rng.IntN(4) == 0 {
			v = levels[rng.IntN(len(levels))]
		}
		p := input{t: t, v: v, null: rng.IntN(25) == 0}
		out = append(out, p)
		switch rng.IntN(30) {
		case 0: // identical duplicate
			out = append(out, p)
		case 1: // conflicting duplicate
			out = append(out, input{t: t, v: v + 1})
		}
	}
	return out
}

func build(t testing.TB, in []input, opts Options) *Pyramid {
	t.Helper()
	b, err := NewBuilder(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range in {
		if err := b.Add(p.t, p.v, p.null); err != nil {
			t.Fatal(err)
		}
	}
	return b.Finish()
}

// randomRange picks a range inside, around or outside the series.
func randomRange(rng *rand.Rand, rows []row) (int64, int64) {
	if len(rows) == 0 || rng.IntN(10) == 0 {
		a := rng.Int64N(1<<41) - 1<<40
		return a, a + rng.Int64N(1<<40)
	}
	pick := func() int64 {
		r := rows[rng.IntN(len(rows))].t
		switch rng.IntN(3) {
		case 0:
			return r
		case 1:
			return r + rng.Int64N(1<<20) - 1<<19
		}
		return r + rng.Int64N(1<<30) - 1<<29
	}
	a, b := pick(), pick()
	if a > b {
		a, b = b, a
	}
	return a, b
}
