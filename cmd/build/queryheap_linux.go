package main

import (
	"runtime"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// hugeHeapBytes is how much of the heap a one-shot question grows into
// that is advised for transparent huge pages: more than the largest
// question at 100,000 requests allocates (~50 MB: a page of 1,000 traced
// requests). Address space the question never touches costs nothing.
const hugeHeapBytes = 128 << 20

// adviseHugeHeap makes the heap a one-shot question is about to grow into
// fault in 2 MB at a time instead of 4 KB. A question decodes into fresh
// memory it touches once: at 100,000 requests a summary took ~4,000 more
// minor faults than `dsight --version`, each ~15-20 µs on a virtual
// machine (a third of its CPU), where the same bytes are some tens of huge
// page faults. The runtime does not ask for huge pages itself, and the
// kernel's default is often to give them only where asked ("madvise"), so
// this maps the room as one large allocation, advises it, and gives it
// back to the heap with a collection: the runtime allocates from the
// lowest free addresses, so the decode lands there. Advice only: where the
// kernel has no huge pages the pages stay as they were, and the runtime
// zeroes the room it reuses (the collection and that zeroing are why a
// small question is not advised: hugeHeapFrom).
func adviseHugeHeap() {
	n := int64(hugeHeapBytes)
	if limit := debug.SetMemoryLimit(-1); limit/2 < n {
		n = limit / 2
	}
	if n < 4<<20 {
		return
	}
	room := make([]byte, n)
	// An error (a kernel without THP) leaves the pages as they were.
	_ = unix.Madvise(room, unix.MADV_HUGEPAGE)
	runtime.KeepAlive(room)
	room = nil
	runtime.GC()
}
