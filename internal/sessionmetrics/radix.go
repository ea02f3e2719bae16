package sessionmetrics

import (
	"cmp"
	"slices"
)

// Sorting a million request times was most of the derivation's cost with
// comparison sorts (and the completion order compared through pointers
// into the requests); least-significant-digit radix passes over 16-bit
// digits sort them in a few linear passes. Both are stable, so the orders
// are exactly those of the comparison sorts they replace.

// radixMin is the size below which a comparison sort is cheaper.
const radixMin = 4096

// sortableKey maps an int64 to a uint64 of the same order.
func sortableKey(v int64) uint64 { return uint64(v) ^ 1<<63 }

// sortInt64s sorts a ascending.
func sortInt64s(a []int64) {
	if len(a) < radixMin {
		slices.Sort(a)
		return
	}
	tmp := make([]int64, len(a))
	src, dst := a, tmp
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, v := range src {
			count[sortableKey(v)>>shift&0xffff]++
		}
		if count[sortableKey(src[0])>>shift&0xffff] == len(src) {
			continue // every value shares this digit
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, v := range src {
			d := sortableKey(v) >> shift & 0xffff
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// stableSortByKey reorders idx stably by ascending key[idx[k]].
func stableSortByKey(idx []int32, key []int64) {
	if len(idx) < radixMin {
		slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(key[a], key[b]) })
		return
	}
	tmp := make([]int32, len(idx))
	src, dst := idx, tmp
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, i := range src {
			count[sortableKey(key[i])>>shift&0xffff]++
		}
		if count[sortableKey(key[src[0]])>>shift&0xffff] == len(src) {
			continue
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, i := range src {
			d := sortableKey(key[i]) >> shift & 0xffff
			dst[count[d]] = i
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &idx[0] {
		copy(idx, src)
	}
}
