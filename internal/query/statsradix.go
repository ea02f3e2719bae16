package query

import (
	"math"
	"slices"
)

// rankByValue sorts rank (request indexes) by ascending v[i], ties by
// descending index: the order statsOrders keeps. It is a least significant
// digit radix sort on the values' bits, a byte a pass, which is stable, so
// ties keep the descending index order rank is put in first. A comparison
// sort of 100,000 indexes through v was most of the first statistics
// answer under wasm, which the page asks right after it opens; this visits
// each index a few times, in order. NaN has no place in the order (the
// caller gives the orders up when a value is NaN); -0 ranks with +0, as
// cmp.Compare has them equal.
// scratch, when it is long enough, holds the sort's working arrays (the
// orders sort three ranks in turn).
func rankByValue(rank []int32, v []float64, scratch *radixScratch) {
	n := len(rank)
	if n < 2 {
		return
	}
	out := rank
	// Descending index: the ties' order (the orders list requests in
	// ascending index order, so this is a reversal).
	if slices.IsSorted(rank) {
		slices.Reverse(rank)
	} else {
		slices.SortFunc(rank, func(a, b int32) int { return int(b) - int(a) })
	}
	if len(scratch.keys) < n {
		*scratch = radixScratch{keys: make([]uint64, n), keys2: make([]uint64, n), rank2: make([]int32, n)}
	}
	keys, keys2, rank2 := scratch.keys[:n], scratch.keys2[:n], scratch.rank2[:n]
	for k, i := range rank {
		keys[k] = orderedBits(v[i])
	}
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		count = [256]int{}
		for _, key := range keys {
			count[byte(key>>shift)]++
		}
		if count[byte(keys[0]>>shift)] == n {
			continue // every key has this byte: the pass would move nothing
		}
		at := 0
		for b, c := range count {
			count[b] = at
			at += c
		}
		for k, key := range keys {
			d := byte(key >> shift)
			keys2[count[d]] = key
			rank2[count[d]] = rank[k]
			count[d]++
		}
		keys, keys2 = keys2, keys
		rank, rank2 = rank2, rank
	}
	copy(out, rank) // a no-op when an even number of passes moved
}

// radixScratch is rankByValue's working memory.
type radixScratch struct {
	keys, keys2 []uint64
	rank2       []int32
}

// orderedBits maps a float64 to a uint64 that orders as the float does
// (negative below positive, -0 as +0).
func orderedBits(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 as +0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}
