// Package heappeak measures, for tests and benchmarks, how far the heap
// rose while a function ran: the working set a build step needs, which
// memory-bound tests hold against a limit.
package heappeak

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// During runs f while sampling the heap's object bytes every millisecond,
// and returns the highest sample above the heap it started from (after a
// collection): the working set f needed, garbage not yet collected
// included.
func During(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return max(peak, read(), base) - base
}
