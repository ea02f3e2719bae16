//go:build unix

package report

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f for as long as f stays open (or
// the process lives).
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// stageLive reports whether a build still holds the lock file at path.
// A stage without a lock file belongs to no running build.
func stageLive(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}
