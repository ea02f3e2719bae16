package query

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The radix order is the comparison sort's: by value, ties by descending
// index, over values with many ties, zeros of both signs, negatives,
// infinities, subnormals and runs that leave some bytes of every key alike.
func TestRankByValueOrdersAsTheComparisonSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func(int) float64{
		"latencies": func(int) float64 { return 0.05 + rng.ExpFloat64()*7 },
		"ties":      func(int) float64 { return float64(rng.IntN(20)) / 4 },
		"signed": func(int) float64 {
			return []float64{0, math.Copysign(0, -1), -1.5, 1.5, math.Inf(1), math.Inf(-1), 5e-324, -5e-324}[rng.IntN(8)]
		},
		"one value":  func(int) float64 { return 3.25 },
		"wide":       func(int) float64 { return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20)) },
		"token rate": func(i int) float64 { return float64(10+i%500) / (0.2 + float64(i%97)/10) },
	}
	var scratch radixScratch // shared, as the orders share it: longer than some ranks it sorts
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 3, 255, 256, 257, 10_000} {
			v := make([]float64, n+7)
			var rank []int32
			for i := range v {
				v[i] = gen(i)
				if i%3 != 1 { // a subset, as completed requests are
					rank = append(rank, int32(i))
				}
			}
			want := slices.Clone(rank)
			slices.SortFunc(want, func(a, b int32) int { return cmp.Or(cmp.Compare(v[a], v[b]), cmp.Compare(b, a)) })
			rankByValue(rank, v, &scratch)
			if !slices.Equal(rank, want) {
				t.Fatalf("%s, %d values: radix order differs from the comparison sort", name, n)
			}
		}
	}
}

func BenchmarkRankByValue(b *testing.B) {
	const n = 100_000
	rng := rand.New(rand.NewPCG(3, 4))
	v := make([]float64, n)
	rank := make([]int32, n)
	for i := range v {
		v[i] = 0.05 + rng.ExpFloat64()*7
	}
	for _, alg := range []string{"radix", "comparison"} {
		b.Run(alg, func(b *testing.B) {
			for range b.N {
				for i := range rank {
					rank[i] = int32(i)
				}
				if alg == "radix" {
					rankByValue(rank, v, &radixScratch{})
				} else {
					slices.SortFunc(rank, func(a, c int32) int { return cmp.Or(cmp.Compare(v[a], v[c]), cmp.Compare(c, a)) })
				}
			}
		})
	}
}
