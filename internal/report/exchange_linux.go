package report

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps two existing paths in one step (renameat2 RENAME_EXCHANGE),
// so no instant has neither report at the output path. ok is false when
// the file system or kernel does not support it, and the caller falls
// back to two renames.
func exchange(a, b string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return false, nil
	}
	return true, err
}
