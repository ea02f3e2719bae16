package importer

import (
	"io"
	"os"
	"sync"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/nsys"
)

// nsightReadBudget bounds the export bytes being read at once. A reader
// sizes its ranges (40 B each) by the rows of NVTX_EVENTS, and an export
// stores a row in about as many bytes, so the budget bounds the ranges
// under construction: the 10M-range run's two 248 MB worker exports are
// read together, and a set of larger ones one after another. An export
// larger than the budget is still read, alone.
const nsightReadBudget = 512 << 20

// nsightRead is one export read: its source (hashed, not yet registered)
// and its profile.
type nsightRead struct {
	src *source
	p   *model.Profile
}

// readNsightFiles reads the exports at paths on up to workers goroutines,
// with at most budget bytes of export being read at once, and hashes each
// file on the goroutine that read it. Sources are opened in path order on
// the caller's goroutine, so their ids are those a serial read gives; the
// caller registers them with finishSource, in order, and closes them. The
// error is the one of the first path (in order) that failed, as a serial
// read would report; every read started is waited for.
func readNsightFiles(b *build, paths []string, workers int, budget int64) ([]nsightRead, error) {
	type result struct {
		p   *model.Profile
		err error
	}
	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		inFlight int
		inBytes  int64
		wg       sync.WaitGroup
	)
	workers = max(1, workers)
	srcs := make([]*source, 0, len(paths))
	results := make([]result, len(paths))
	var openErr error
	for k, path := range paths {
		var size int64
		if st, err := os.Stat(path); err == nil {
			size = st.Size()
		}
		mu.Lock()
		for inFlight > 0 && (inFlight >= workers || inBytes+size > budget) {
			cond.Wait()
		}
		inFlight, inBytes = inFlight+1, inBytes+size
		mu.Unlock()
		src, err := b.openSource(path, "nsight")
		if err != nil {
			mu.Lock()
			inFlight, inBytes = inFlight-1, inBytes-size
			mu.Unlock()
			openErr = err
			break
		}
		srcs = append(srcs, src)
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := nsys.Read(path, src.rel, nsys.Options{MaxEvents: b.opt.MaxProfileEvents})
			if err == nil {
				_, err = io.Copy(src.h, src.r) // the file's hash, for finishSource
			}
			results[k] = result{p, err}
			mu.Lock()
			inFlight, inBytes = inFlight-1, inBytes-size
			cond.Broadcast()
			mu.Unlock()
		}()
	}
	wg.Wait()
	var err error
	for k := range srcs {
		if err == nil {
			err = results[k].err
		}
	}
	if err == nil {
		err = openErr
	}
	if err != nil {
		for _, src := range srcs {
			src.close()
		}
		return nil, err
	}
	out := make([]nsightRead, len(srcs))
	for k, src := range srcs {
		out[k] = nsightRead{src: src, p: results[k].p}
	}
	return out, nil
}
