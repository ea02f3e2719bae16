package watermark

import (
	"slices"
	"sync"
	"testing"
)

// What waits runs once the level reaches its mark, each once, in the order
// registered; once finished, at once.
func TestWaitersRunOnceTheLevelReachesTheirMark(t *testing.T) {
	var w Waiters
	var ran []string
	note := func(s string) func() { return func() { ran = append(ran, s) } }
	w.Then(3, note("a"))
	w.Then(5, note("b"))
	w.Then(4, note("c"))
	w.Add(2)
	if len(ran) != 0 {
		t.Fatalf("ran %v at level 2", ran)
	}
	w.Add(1)
	if !slices.Equal(ran, []string{"a"}) {
		t.Fatalf("ran %v at level 3", ran)
	}
	w.Raise(2) // never lowers
	w.Raise(7)
	if !slices.Equal(ran, []string{"a", "b", "c"}) || w.Level() != 7 {
		t.Fatalf("ran %v at level %d", ran, w.Level())
	}
	w.Then(6, note("d")) // reached already
	w.Then(9, note("e"))
	if !slices.Equal(ran, []string{"a", "b", "c", "d"}) {
		t.Fatalf("ran %v", ran)
	}
	w.Finish()
	w.Then(100, note("f"))
	if !slices.Equal(ran, []string{"a", "b", "c", "d", "e", "f"}) {
		t.Fatalf("ran %v after Finish", ran)
	}
}

// A function may register another from inside itself (it runs unlocked),
// and raises from many goroutines run each waiter exactly once.
func TestWaitersFromManyGoroutines(t *testing.T) {
	var w Waiters
	var mu sync.Mutex
	runs := map[int]int{}
	for m := 1; m <= 1000; m++ {
		w.Then(m, func() {
			mu.Lock()
			runs[m]++
			mu.Unlock()
			if m == 500 {
				w.Then(1000, func() {})
			}
		})
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				w.Add(1)
			}
		})
	}
	wg.Wait()
	if len(runs) != 1000 {
		t.Fatalf("%d of 1000 waiters ran", len(runs))
	}
	for m, n := range runs {
		if n != 1 {
			t.Fatalf("the waiter for %d ran %d times", m, n)
		}
	}
}
