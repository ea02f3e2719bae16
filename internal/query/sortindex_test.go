package query

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortByIndex must leave elements in the order slices.SortFunc leaves
// them, also among elements the comparison calls equal (told apart by tag,
// which it ignores), at every length pdqsort treats differently.
func TestSortByIndexMatchesSortFunc(t *testing.T) {
	type row struct {
		key string
		n   int
		tag int
	}
	rng := rand.New(rand.NewPCG(1, 2))
	byKey := func(a, b row) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.key, b.key)) }
	for _, n := range []int{0, 1, 2, 5, 12, 13, 50, 100, 1000, 5000} {
		for _, spread := range []int{1, 3, 40, 1 << 20} {
			in := make([]row, n)
			for i := range in {
				in[i] = row{key: string(rune('a' + rng.IntN(min(spread, 26)))), n: rng.IntN(spread), tag: i}
			}
			if spread == 40 && n > 0 { // runs of sorted and reversed input
				slices.SortFunc(in[:n/2], byKey)
				slices.Reverse(in[:n/2])
			}
			want, got := slices.Clone(in), slices.Clone(in)
			slices.SortFunc(want, byKey)
			sortByIndex(got, byKey)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d spread=%d: sortByIndex order differs from slices.SortFunc", n, spread)
			}
		}
	}
}
