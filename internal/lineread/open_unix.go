//go:build unix

package lineread

import (
	"os"
	"syscall"
)

const oNonblock = syscall.O_NONBLOCK

// clearNonblock restores blocking reads on a regular file, where
// O_NONBLOCK has no effect on Linux but may on other systems.
func clearNonblock(f *os.File) error {
	return syscall.SetNonblock(int(f.Fd()), false)
}
