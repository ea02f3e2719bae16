package sqlstore

import (
	"cmp"
	"slices"
)

// sortedKeys gives a map's keys in order: no map order reaches the file,
// so identical inputs give a byte-identical store.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
