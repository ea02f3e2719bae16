package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestCollectOnlyPastLimit(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	// Whatever GOMEMLIMIT the test runs under, it starts from none.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	restore := collectOnlyPastLimit()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("during a question the collector runs at GOGC=%d, want it off", p)
	}
	if l := debug.SetMemoryLimit(-1); l != oneShotHeapLimit {
		t.Errorf("during a question the heap limit is %d, want %d", l, oneShotHeapLimit)
	}
	restore()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("after a question GOGC=%d, want the 100 it was", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("after a question the heap limit is %d, want none", l)
	}

	// A lower limit the user set stays.
	debug.SetMemoryLimit(64 << 20)
	restore = collectOnlyPastLimit()
	if l := debug.SetMemoryLimit(-1); l != 64<<20 {
		t.Errorf("a GOMEMLIMIT of 64 MiB became %d during a question", l)
	}
	restore()
}
