package importer

import (
	"runtime"
	"sync"
)

// inOrder reads items 0..n-1 ahead on other goroutines and hands each to
// use on the caller's, strictly in order. The passes over the span spill
// read and decode a bucket (pure work on that bucket alone) far longer
// than they take to use it, so with the reads ahead every core works
// while the result stays that of a sequential loop: use sees the same
// values in the same order, and the first error (of a read or a use, in
// item order) is the one returned.
//
// At most ahead items are read at once and not yet used, which bounds the
// memory to ahead+1 items. Every read started has returned when inOrder
// does, so the caller may close what read uses.
func inOrder[T any](n, ahead int, read func(int) (T, error), use func(int, T) error) error {
	if n <= 0 {
		return nil
	}
	if ahead < 1 || n == 1 {
		for k := range n {
			v, err := read(k)
			if err != nil {
				return err
			}
			if err := use(k, v); err != nil {
				return err
			}
		}
		return nil
	}
	type result struct {
		v   T
		err error
	}
	slots := make([]chan result, n)
	for k := range slots {
		slots[k] = make(chan result, 1)
	}
	tokens := make(chan struct{}, ahead)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := range n {
			select {
			case tokens <- struct{}{}:
			case <-stop:
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := read(k)
				slots[k] <- result{v, err}
			}()
		}
	}()
	var err error
	for k := 0; k < n && err == nil; k++ {
		r := <-slots[k]
		<-tokens
		if err = r.err; err == nil {
			err = use(k, r.v)
		}
	}
	close(stop)
	wg.Wait()
	return err
}

// readAhead is how many spill buckets are decoded ahead of the pass using
// them: one per core, so the decoding keeps the cores busy while the pass
// itself runs on the caller's goroutine.
func readAhead() int { return runtime.GOMAXPROCS(0) }
