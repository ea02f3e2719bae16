package sessionmetrics

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// The radix sorts order exactly as the comparison sorts they replace:
// negative and huge values, duplicates, digits every value shares, and
// the stable order of equal keys.
func TestRadixSorts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 100, radixMin, radixMin + 1, 50_000} {
		for _, spread := range []int64{1, 1 << 20, 1 << 40, 1<<62 - 1} {
			a := make([]int64, n)
			for k := range a {
				a[k] = rng.Int64N(spread) - spread/2
				if k%97 == 0 {
					a[k] = [...]int64{-1 << 63, 1<<63 - 1, 0, -1}[k%4]
				}
			}
			want := slices.Clone(a)
			slices.Sort(want)
			got := slices.Clone(a)
			sortInt64s(got)
			if !slices.Equal(got, want) {
				t.Fatalf("sortInt64s n=%d spread=%d", n, spread)
			}
			idx := make([]int32, n)
			for k := range idx {
				idx[k] = int32(k)
			}
			wantIdx := slices.Clone(idx)
			slices.SortStableFunc(wantIdx, func(x, y int32) int { return cmp.Compare(a[x], a[y]) })
			stableSortByKey(idx, a)
			if !slices.Equal(idx, wantIdx) {
				t.Fatalf("stableSortByKey n=%d spread=%d", n, spread)
			}
		}
	}
}
