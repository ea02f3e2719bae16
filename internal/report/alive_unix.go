//go:build unix

package report

import "syscall"

// processAlive reports whether a process with this id exists. EPERM means it
// exists but belongs to someone else.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
