package main

import (
	"testing"
)

// A question is advised for huge pages only when the core frames it reads
// decode to hugeHeapFrom or more: the advice's collection costs a small
// question more than its faults. The golden run's core is small, so it is
// advised only with the threshold lowered, and a question that reads no
// request table at all not even then.
func TestHeapAdvisedOnlyForBigReads(t *testing.T) {
	defer func(n int, f func()) { hugeHeapFrom, adviseHeap = n, f }(hugeHeapFrom, adviseHeap)
	advised := 0
	adviseHeap = func() { advised++ }
	golden, _ := goldenDir(t)
	open := func(argv ...string) {
		t.Helper()
		_, req, err := queryRequest(append([]string{golden}, argv...), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := openReading(golden, req); err != nil {
			t.Fatal(err)
		}
	}
	open("summary")
	if advised != 0 {
		t.Errorf("a summary of the golden run was advised %d times, want none (its core is small)", advised)
	}
	hugeHeapFrom = 1
	open("summary")
	open("requests", "--limit", "5")
	if advised != 2 {
		t.Errorf("with the threshold at one byte, summary and requests were advised %d times, want 2", advised)
	}
}
