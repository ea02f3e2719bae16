//go:build js && wasm

package main

import (
	"runtime/debug"
	"syscall/js"
)

// The collector while the page starts. Everything the core decodes stays
// live in the engine: a collection while it decodes (the heap growing
// from a few MB to ~50 on 100,000 requests) would mark and sweep what it
// cannot free, on the page's one thread. So give("core") turns the
// collector off, and the page calls settle once its first render is done
// (web/src/main.js; for a traced report, once ready: its evidence is
// given to the engine after that, web/src/evidenceload.js); the first
// collection then happens after the page is usable.

// gcPercent is the setting collectorOff replaced while gcOff.
var (
	gcPercent int
	gcOff     bool
)

func collectorOff() {
	if !gcOff {
		gcPercent, gcOff = debug.SetGCPercent(-1), true
	}
}

// settle() turns the collector back on; calling it again does nothing.
func settle(js.Value, []js.Value) any {
	if gcOff {
		debug.SetGCPercent(gcPercent)
		gcOff = false
	}
	return nil
}
