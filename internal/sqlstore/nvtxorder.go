package sqlstore

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/dsight/dsight/internal/model"
)

// The nvtx_ranges key is (profile, bucket, start, source_row), while a
// profile's ranges arrive ordered by (start, end descending, rowid). A
// general sort of one row per range cost a 32-byte copy of each (160 MB
// and a second of appends for a 5M-range profile) before the b-tree got
// its first row. The key order is instead a permutation of int32 built
// from the order the ranges already have: one pass computes each range's
// duration class, a counting pass places the ranges class by class
// (stable, so each class stays in start order), and only runs of equal
// start, where the model orders by end and the key by rowid, are sorted.

// bucketOffset shifts a duration class to a count index. Times are int64
// nanoseconds, so a duration is below 2^35 s, and DurationBucket is at
// least -29; the span leaves room on both sides.
const (
	bucketOffset = 64
	bucketSpan   = 128
)

// nvtxOrder is the scratch a profile's key order is built in, kept from
// profile to profile so the largest one sizes it once.
type nvtxOrder struct {
	bucket  []int8  // per range, its duration class
	perm    []int32 // range indexes in key order
	count   [bucketSpan]int
	longest [bucketSpan]float64
}

// build orders p's ranges by (bucket, start, rowid) and records each
// class's longest duration; the returned permutation is valid until the
// next build.
func (o *nvtxOrder) build(w *writer, p *model.Profile) ([]int32, error) {
	n := len(p.Ranges)
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%d ranges in one profile", n)
	}
	if cap(o.bucket) < n {
		o.bucket, o.perm = make([]int8, n), make([]int32, n)
	}
	o.bucket, o.perm = o.bucket[:n], o.perm[:n]
	clear(o.count[:])
	clear(o.longest[:])
	inOrder, ties := true, false
	prev := math.Inf(-1)
	for k := range p.Ranges {
		start, end := w.rangeSeconds(p, k)
		d := end - start
		b := durationBucket(d) + bucketOffset
		if b < 0 || b >= bucketSpan {
			return nil, fmt.Errorf("range of source row %d: a duration of %g s", p.Ranges[k].RowID, d)
		}
		o.bucket[k] = int8(b - bucketOffset)
		o.count[b]++
		// max with 0, as a class's longest starts from 0.
		o.longest[b] = max(o.longest[b], d)
		switch {
		case start < prev:
			inOrder = false
		case start == prev:
			ties = true
		}
		prev = start
	}
	var at [bucketSpan]int
	sum := 0
	for b, c := range o.count {
		at[b] = sum
		sum += c
	}
	for k := range n {
		b := int(o.bucket[k]) + bucketOffset
		o.perm[at[b]] = int32(k)
		at[b]++
	}
	byRow := func(a, b int32) int { return cmp.Compare(p.Ranges[a].RowID, p.Ranges[b].RowID) }
	if !inOrder {
		// Not the model's order: a full sort of the (small) permutation.
		slices.SortFunc(o.perm, func(a, b int32) int {
			if o.bucket[a] != o.bucket[b] {
				return cmp.Compare(o.bucket[a], o.bucket[b])
			}
			sa, _ := w.rangeSeconds(p, int(a))
			sb, _ := w.rangeSeconds(p, int(b))
			return cmp.Or(cmp.Compare(sa, sb), byRow(a, b))
		})
		return o.perm, nil
	}
	if ties {
		// Within a class, a run of equal starts goes by rowid. A run never
		// spans two classes: the class changes along the permutation only
		// with o.bucket.
		for i := 0; i < n; {
			s, _ := w.rangeSeconds(p, int(o.perm[i]))
			j := i + 1
			for j < n && o.bucket[o.perm[j]] == o.bucket[o.perm[i]] {
				if t, _ := w.rangeSeconds(p, int(o.perm[j])); t != s {
					break
				}
				j++
			}
			if j-i > 1 {
				slices.SortFunc(o.perm[i:j], byRow)
			}
			i = j
		}
	}
	return o.perm, nil
}

// durations appends p's nvtx_durations rows, class by class, from the
// last build.
func (o *nvtxOrder) durations(id int, rows [][3]any) [][3]any {
	for b, c := range o.count {
		if c > 0 {
			rows = append(rows, [3]any{id, b - bucketOffset, o.longest[b]})
		}
	}
	return rows
}

// rangeSeconds is range k's start and end as the store keeps them.
func (w *writer) rangeSeconds(p *model.Profile, k int) (start, end float64) {
	r := &p.Ranges[k]
	return w.seconds(p.UTCNS(r.StartNS)), w.seconds(p.UTCNS(r.EndNS))
}

// threadIndex finds a profile's thread numbers by global thread id: a
// binary search over the few threads a profile has, where a map lookup
// per range hashed 10M keys.
type threadIndex struct {
	gtids []int64 // ascending
	ids   []int
	// The last thread found: ranges in key order mostly repeat it.
	lastG   int64
	lastID  int
	hasLast bool
}

func (t *threadIndex) reset(threads map[int64]int) {
	t.gtids, t.ids, t.hasLast = t.gtids[:0], t.ids[:0], false
	for _, g := range sortedKeys(threads) {
		t.gtids, t.ids = append(t.gtids, g), append(t.ids, threads[g])
	}
}

// of is gtid's number, numbering it (w.threadOf) when the profile has not
// named it yet.
func (t *threadIndex) of(w *writer, d *model.Dataset, i int, gtid int64) int {
	if t.hasLast && gtid == t.lastG {
		return t.lastID
	}
	at, ok := slices.BinarySearch(t.gtids, gtid)
	k := 0
	if ok {
		k = t.ids[at]
	} else {
		k = w.threadOf(d, i, gtid)
		t.gtids, t.ids = slices.Insert(t.gtids, at, gtid), slices.Insert(t.ids, at, k)
	}
	t.lastG, t.lastID, t.hasLast = gtid, k, true
	return k
}

// durationBucket is DurationBucket without its logarithm where the
// binary exponent alone decides: for d = frac·2^exp with frac clear of
// 1/2, ceil(log2 d) is exp, and math.Log2's rounding (its error is far
// below 1e-7 for the exponents a duration has) cannot reach exp-1. Only
// durations within a hair above a power of two take the logarithm, so
// the class is DurationBucket's in every case (TestDurationBucketFast).
func durationBucket(d float64) int {
	if frac, exp := math.Frexp(max(d, 1e-9)); frac > 0.5000001 && frac < 1 {
		return exp
	}
	return DurationBucket(d)
}
