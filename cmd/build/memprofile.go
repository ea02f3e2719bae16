package main

import (
	"bytes"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// peakHeapProfile keeps the heap profile taken when the live heap was at its
// highest, because the memory a build needs is set by its peak, not by what
// is left at the end. Live bytes are known only after a collection, so it
// samples them every 50 ms and takes a new profile when they grew by 5 %.
type peakHeapProfile struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
	prof bytes.Buffer
}

func startPeakHeapProfile() *peakHeapProfile {
	p := &peakHeapProfile{stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > p.peak+p.peak/20 {
				p.peak = live
				p.prof.Reset()
				_ = pprof.Lookup("heap").WriteTo(&p.prof, 0)
			}
		}
	}()
	return p
}

// write stops sampling and writes the peak profile to path.
func (p *peakHeapProfile) write(path string) error {
	close(p.stop)
	p.done.Wait()
	if p.prof.Len() == 0 { // a build quicker than one sample
		if err := pprof.Lookup("heap").WriteTo(&p.prof, 0); err != nil {
			return err
		}
	}
	return os.WriteFile(path, p.prof.Bytes(), 0o644)
}
