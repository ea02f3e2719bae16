package nsys

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of an x86-64 and arm64 transparent huge page.
const hugePage = 2 << 20

// adviseHugePages asks the kernel to back the whole capacity of s, a large
// slice not yet written, with transparent huge pages (madvise
// MADV_HUGEPAGE; the default THP mode "madvise" gives the Go heap none).
// The first write to each 4 KB page of a fresh allocation is a page fault:
// for a profile's ranges (40 B each, 200 MB for five million) those faults
// cost as much CPU as reading the export, and a 2 MB page takes one fault
// where 4 KB pages take 512. It is advice only: the contents are unchanged
// (zero), and a kernel without THP ignores or refuses it.
func adviseHugePages[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n < 4*hugePage {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(s[:cap(s)]))
	p := uintptr(base)
	lo, hi := (p+hugePage-1)&^(hugePage-1), (p+n)&^(hugePage-1)
	if hi <= lo {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, lo-p)), hi-lo), syscall.MADV_HUGEPAGE)
}
