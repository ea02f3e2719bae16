//go:build unix

package report

import "syscall"

// oNoFollow makes an open fail on a symlink swapped in after the Lstat.
const oNoFollow = syscall.O_NOFOLLOW
