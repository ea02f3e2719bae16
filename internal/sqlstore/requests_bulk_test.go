package sqlstore

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The requests' index orders are sorted one after the other: a sort
// takes its keys only once the order before it is given, so the build
// holds one sort's keys at a time (92 MB for the three at once at 1M
// requests). Ties keep their positions' order.
func TestSortLaterWaitsForTheOrderBefore(t *testing.T) {
	release := make(chan struct{})
	before := sync.OnceValue(func() []int32 { <-release; return []int32{0} })
	var took atomic.Bool
	order := sortLater(before, 5, func(i int) int { took.Store(true); return -i / 2 }, cmp.Compare[int])
	time.Sleep(50 * time.Millisecond)
	if took.Load() {
		t.Fatal("a sort took its keys before the order before it was given")
	}
	close(release)
	if got, want := order(), []int32{4, 2, 3, 0, 1}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if got := order(); len(got) != 5 {
		t.Fatalf("a second wait gave %v", got)
	}
	if got := before(); !slices.Equal(got, []int32{0}) {
		t.Fatalf("the order before, waited for again: %v", got)
	}
}
