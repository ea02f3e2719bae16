//go:build !linux

package report

// exchange is unavailable here: swap renames twice.
func exchange(a, b string) (bool, error) { return false, nil }
