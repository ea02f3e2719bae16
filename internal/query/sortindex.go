package query

import "slices"

// sortByIndex sorts s exactly as slices.SortFunc(s, cmp) does, through an
// index permutation. slices.SortFunc compiles pdqsort and its helpers anew
// for every element shape, 16-24 KB of engine.wasm per struct type, while
// every []int sort shares one copy. pdqsort's moves depend only on the
// length and on the comparisons' outcomes, so sorting the indices by the
// elements they name gives the permutation SortFunc would apply, equal
// elements included (TestSortByIndexMatchesSortFunc).
//
// It copies s once: keep it for short slices (top-N tables, a report's
// processes), not for sorts over every request or range.
func sortByIndex[T any](s []T, cmp func(a, b T) int) {
	if len(s) < 2 {
		return
	}
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return cmp(s[i], s[j]) })
	from := slices.Clone(s)
	for k, i := range idx {
		s[k] = from[i]
	}
}
