package metrics

import (
	"os"
	"syscall"
	"unsafe"
)

// dropPages gives back the whole pages inside b, which are not read again:
// mapped file pages count in the process's resident set until dropped, and
// the pages stay in the page cache, so a later read of them (a series
// sharing a page, with blocks smaller than a page) maps them again.
func dropPages(b []byte) {
	page := uintptr(os.Getpagesize())
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo {
		return
	}
	syscall.Madvise(b[lo-start:hi-start], syscall.MADV_DONTNEED) // advice only
}
