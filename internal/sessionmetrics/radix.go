package sessionmetrics

import (
	"cmp"
	"slices"
)

// Sorting a million request times was most of the derivation's cost with
// comparison sorts (and the completion order compared through pointers
// into the requests); least-significant-digit radix passes sort them in a
// few linear passes. Both are stable, so the orders are exactly those of
// the comparison sorts they replace.
//
// Digits are 11 bits: a pass scatters into 2,048 buckets, whose write
// positions stay in the cache (16-bit digits scattered into 65,536, and a
// million values then cost a cache miss a value), and one read counts
// every digit's histogram. A digit every value shares is skipped, so times
// of a run of hours take four passes.

// radixMin is the size below which a comparison sort is cheaper.
const radixMin = 4096

const (
	digitBits = 11
	digits    = (64 + digitBits - 1) / digitBits
	buckets   = 1 << digitBits
)

// sortableKey maps an int64 to a uint64 of the same order.
func sortableKey(v int64) uint64 { return uint64(v) ^ 1<<63 }

func digit(k uint64, d int) int { return int(k >> (d * digitBits) & (buckets - 1)) }

// histograms counts every digit of the keys in one pass and turns each
// count into its bucket's first position; skip[d] is set when every key
// shares digit d.
func histograms(n int, key func(i int) uint64) (pos *[digits][buckets]int32, skip [digits]bool) {
	pos = new([digits][buckets]int32)
	for i := range n {
		k := key(i)
		for d := range digits {
			pos[d][digit(k, d)]++
		}
	}
	for d := range digits {
		var sum int32
		for b, c := range pos[d] {
			if int(c) == n {
				skip[d] = true
			}
			pos[d][b] = sum
			sum += c
		}
	}
	return pos, skip
}

// sortInt64s sorts a ascending.
func sortInt64s(a []int64) { sortInt64sWith(a, nil) }

// sortInt64sWith sorts a ascending with tmp as scratch space (grown when
// short) and returns the scratch for the next sort.
func sortInt64sWith(a, tmp []int64) []int64 {
	if len(a) < radixMin {
		slices.Sort(a)
		return tmp
	}
	if cap(tmp) < len(a) {
		tmp = make([]int64, len(a))
	}
	tmp = tmp[:len(a)]
	pos, skip := histograms(len(a), func(i int) uint64 { return sortableKey(a[i]) })
	src, dst := a, tmp
	for d := range digits {
		if skip[d] {
			continue
		}
		p := &pos[d]
		for _, v := range src {
			b := digit(sortableKey(v), d)
			dst[p[b]] = v
			p[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
	return tmp
}

// keyed is an index with its key, sorted together so that a pass reads
// both in sequence.
type keyed struct {
	key uint64
	idx int32
}

// stableSortByKey reorders idx stably by ascending key[idx[k]].
func stableSortByKey(idx []int32, key []int64) { stableSortByKeyWith(idx, key, nil) }

// stableSortByKeyWith is stableSortByKey with tmp as scratch space (grown
// when short); it returns the scratch for the next sort.
func stableSortByKeyWith(idx []int32, key []int64, tmp []keyed) []keyed {
	if len(idx) < radixMin {
		slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(key[a], key[b]) })
		return tmp
	}
	if cap(tmp) < 2*len(idx) {
		tmp = make([]keyed, 2*len(idx))
	}
	src := tmp[:len(idx)]
	for k, i := range idx {
		src[k] = keyed{sortableKey(key[i]), i}
	}
	for k, x := range sortKeyed(src, tmp[len(idx):2*len(idx)]) {
		idx[k] = x.idx
	}
	return tmp
}

// sortKeyed sorts a stably by key, using b (as long as a) as scratch
// space; the sorted values are in the slice it returns, a or b.
func sortKeyed(a, b []keyed) []keyed {
	if len(a) < radixMin {
		slices.SortStableFunc(a, func(x, y keyed) int { return cmp.Compare(x.key, y.key) })
		return a
	}
	pos, skip := histograms(len(a), func(i int) uint64 { return a[i].key })
	src, dst := a, b
	for d := range digits {
		if skip[d] {
			continue
		}
		p := &pos[d]
		for _, x := range src {
			b := digit(x.key, d)
			dst[p[b]] = x
			p[b]++
		}
		src, dst = dst, src
	}
	return src
}
