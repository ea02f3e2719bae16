package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// buildHeapBudget is the memory a build may take before its collector
// works harder than GOGC asks: up to it, a build's heap grows to twice its
// live heap, as without a limit (docs/measurements.md, issue 17: the
// traced build's live heap). Tests lower it.
var buildHeapBudget int64 = 1792 << 20

// buildHeapSlack is what the runtime holds besides the heap (stacks,
// its own metadata, a sweep's lag), which the memory limit counts.
const buildHeapSlack = 64 << 20

// buildHeapLimit is the soft memory limit of a build whose live heap was
// live bytes at its last collection: the budget, or a quarter again the
// live heap (and the slack) when that is more. Under it the collector
// always has a quarter of the live heap to fill before it must run
// again, as with GOGC=25: it never runs back to back, which a fixed limit
// below the working set makes it do (a 1M traced build under
// GOMEMLIMIT=1800MiB, its live heap 2.1 GB, ran 74 minutes instead of 9).
func buildHeapLimit(live uint64) int64 {
	return max(buildHeapBudget, int64(live+live/4+buildHeapSlack))
}

// boundBuildHeap sets the build's memory limit from its live heap after
// every collection (buildHeapLimit), unless the user set GOMEMLIMIT,
// which then stands alone. restore stops it and puts the limit back.
func boundBuildHeap() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	var mu sync.Mutex
	stopped := false
	old := debug.SetMemoryLimit(buildHeapLimit(0))
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	afterEachGC(func() bool {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			metrics.Read(sample)
			debug.SetMemoryLimit(buildHeapLimit(sample[0].Value.Uint64()))
		}
		return !stopped
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		debug.SetMemoryLimit(old)
	}
}

// gcSentinel is an object nothing refers to, whose finalizer runs once a
// collection has found it so. It holds a pointer so that it is never a
// tiny allocation, whose finalizer may never run.
type gcSentinel struct{ _ *byte }

// afterEachGC calls f after every collection until f returns false.
func afterEachGC(f func() bool) {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		if f() {
			afterEachGC(f)
		}
	})
}
