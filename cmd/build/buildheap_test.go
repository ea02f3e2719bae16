package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The limit is the budget until a quarter again the live heap is more;
// the collector always has at least a quarter of the live heap to fill.
func TestBuildHeapLimit(t *testing.T) {
	const gib = 1 << 30
	for _, tt := range []struct {
		live uint64
		want int64
	}{
		{0, buildHeapBudget},
		{gib, buildHeapBudget},
		{1300 << 20, buildHeapBudget},
		{1600 << 20, 2000<<20 + buildHeapSlack},
		{3 * gib, 3.75*gib + buildHeapSlack},
	} {
		got := buildHeapLimit(tt.live)
		if got != tt.want {
			t.Errorf("buildHeapLimit(%d MiB) = %d MiB, want %d MiB", tt.live>>20, got>>20, tt.want>>20)
		}
		if got < int64(tt.live+tt.live/4) {
			t.Errorf("buildHeapLimit(%d MiB) = %d MiB leaves less than a quarter of the live heap to fill", tt.live>>20, got>>20)
		}
	}
}

// The build's limit follows its live heap after each collection, and
// restore puts the previous limit back.
func TestBuildHeapLimitFollowsTheLiveHeap(t *testing.T) {
	old := buildHeapBudget
	buildHeapBudget = 16 << 20
	defer func() { buildHeapBudget = old }()
	before := debug.SetMemoryLimit(-1)
	restore := boundBuildHeap()
	if got, want := debug.SetMemoryLimit(-1), buildHeapLimit(0); got != want {
		t.Errorf("limit at the start = %d, want %d", got, want)
	}
	live := make([]byte, 96<<20)
	for k := range live {
		live[k] = 1
	}
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < 96<<20+24<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("limit %d MiB with 96 MiB live, want at least 120 MiB", debug.SetMemoryLimit(-1)>>20)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	runtime.KeepAlive(live)
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after restore = %d, want %d", got, before)
	}
	runtime.GC() // a finalizer still armed changes nothing now
	time.Sleep(10 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after a collection past restore = %d, want %d", got, before)
	}
}

// A GOMEMLIMIT the user set stands alone.
func TestBuildHeapLimitLeavesGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "5GiB")
	before := debug.SetMemoryLimit(-1)
	restore := boundBuildHeap()
	defer restore()
	runtime.GC()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit = %d with GOMEMLIMIT set, want it left at %d", got, before)
	}
	if before != math.MaxInt64 {
		t.Logf("the test process runs under a limit of %d", before)
	}
}
