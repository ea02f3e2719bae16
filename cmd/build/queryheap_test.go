package main

import (
	"testing"

	"github.com/dsight/dsight/internal/query"
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

// A metrics question is advised once its core frames and summary shards
// decode to hugeHeapFrom or more together, after an open whose frames
// alone did not: never twice, and not when both are small.
func TestHeapAdvisedForBigMetricReads(t *testing.T) {
	defer func(n int, f func()) { hugeHeapFrom, adviseHeap = n, f }(hugeHeapFrom, adviseHeap)
	advised := 0
	adviseHeap = func() { advised++ }
	golden, _ := goldenDir(t)
	ask := func(argv ...string) (core, metric int) {
		t.Helper()
		_, req, err := queryRequest(append([]string{golden}, argv...), nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, r, err := openReading(golden, req)
		if err != nil {
			t.Fatal(err)
		}
		e, err := query.New(rep.Core)
		if err != nil {
			t.Fatal(err)
		}
		adviseForMetrics(e, rep.Core, r, req)
		return r.CoreReadBytes(query.SkippedTables(req.Op, req.named())), metricReadBytes(e, rep.Core, req)
	}
	core, metric := ask("metrics", "--points")
	if advised != 0 || metric == 0 {
		t.Fatalf("advised %d times at the default threshold (core %d, shards %d bytes)", advised, core, metric)
	}
	hugeHeapFrom = core + 1
	ask("metrics", "--points")
	if advised != 1 {
		t.Errorf("core %d and shards %d bytes past the threshold of %d: advised %d times, want 1", core, metric, hugeHeapFrom, advised)
	}
	ask("metrics", "--name", "no_such_family")
	ask("metric_series")
	if advised != 1 {
		t.Errorf("a question loading no shard was advised: %d times", advised)
	}
	hugeHeapFrom = 1 // the open advises; the shards add no advice
	ask("metrics", "--points")
	if advised != 2 {
		t.Errorf("with the threshold at one byte, advised %d times, want 2", advised)
	}
}
