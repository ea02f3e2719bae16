//go:build js && wasm

package main

import (
	"runtime"
	"runtime/debug"
	"syscall/js"
)

// The collector while the page starts. Everything the core decodes stays
// live in the engine: a collection while it decodes (the heap growing
// from a few MB to ~50 on 100,000 requests) would mark and sweep what it
// cannot free, on the page's one thread. So give("core") turns the
// collector off, and the page calls settle once its first render is done
// (web/src/main.js; for a traced report, once its evidence is all in the
// engine, given after ready, web/src/evidenceload.js: ~94 MB on 100,000
// traced requests, which against the goal of the heap before it would
// start cycles inside the calls made meanwhile); the first collection
// then happens after the page is usable.
//
// The collector after ready. On js/wasm the engine has one thread: a
// cycle the runtime starts marks the whole heap (~45 ms on 100,000 traced
// requests) inside the call whose allocation crossed the heap goal, so
// one call in a few dozen paid it (docs/measurements.md, issue 17). So
// the page calls collect in its idle time after its calls
// (web/src/engine.js), and collect runs a whole cycle there once the heap
// has used half its headroom since the last one: the runtime's own
// trigger is then reached only by a run of calls with no idle time
// between them that allocates the rest of the headroom: half the live
// heap, or of 64 MB on a small one.

// gcPercent is the setting collectorOff replaced while gcOff; percent is
// the one in force after a collection of ours (collected).
var (
	gcPercent = 100
	gcOff     bool
	percent   = 100
)

// minHeadroom is the least the heap may grow by before the runtime starts
// a cycle itself: on a small report twice the live heap is a few MB,
// which a few renders' answers use up between two idle times.
const minHeadroom = 64 << 20

func collectorOff() {
	if !gcOff {
		gcPercent, gcOff = debug.SetGCPercent(-1), true
	}
}

// settle() turns the collector back on; calling it again does nothing.
// It collects first: turned on with the goal the heap had before the
// core (a few MB), the runtime would start marking all of it at the next
// allocation, inside the page's next call.
func settle(js.Value, []js.Value) any {
	if gcOff {
		gcOff = false
		collected()
	}
	return nil
}

// collected runs a whole collection, then sets the goal to twice what is
// live (gcPercent, 100 by default) or minHeadroom above it, the more.
func collected() {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	percent = max(gcPercent, int(minHeadroom*100/max(m.HeapAlloc, 1)))
	debug.SetGCPercent(percent)
}

// collect(force?) runs a whole collection when the heap has grown past
// half its headroom since the last (or always, with force true) and
// answers whether it did. While the collector is off it does nothing.
func collect(_ js.Value, args []js.Value) any {
	if gcOff {
		return false
	}
	force := len(args) == 1 && args[0].Type() == js.TypeBoolean && args[0].Bool()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	// NextGC is live × (1 + percent/100) after a cycle; the heap is
	// collected when what it allocated since reaches half the difference.
	live := m.NextGC * 100 / uint64(100+percent)
	if !force && m.HeapAlloc < live+(m.NextGC-live)/2 {
		return false
	}
	collected()
	return true
}

// memory() answers the collector's counts, [cycles, heap, goal]: the
// collections completed, the bytes allocated and not yet freed, and the
// heap size at which the runtime starts a cycle itself. The page's tests
// count the cycles that land inside calls with it.
func memory(js.Value, []js.Value) any {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return []any{m.NumGC, m.HeapAlloc, m.NextGC}
}
