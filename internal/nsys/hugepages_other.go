//go:build !linux

package nsys

// adviseHugePages is a no-op where madvise MADV_HUGEPAGE does not exist.
func adviseHugePages[T any](s []T) {}
