//go:build !linux

package metrics

// dropPages does nothing where the mapping's pages cannot be advised away;
// they are given back when the spill is closed.
func dropPages([]byte) {}
