//go:build darwin || freebsd || netbsd

package importer

import (
	"os"
	"syscall"
)

// changeTime is a file's inode change time in nanoseconds, 0 when unknown.
func changeTime(st os.FileInfo) int64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ctimespec.Nano()
	}
	return 0
}
