package main

// hugeHeapFrom is the decoded size of the core frames a question reads
// from which its heap is advised for huge pages (adviseHugeHeap). The
// advice costs a collection of the start-up heap (~550 faults, ~10 ms in a
// fresh process: `metric_families` at 100,000 requests went from 999 to
// 1,590 faults), which pays for itself only when the open touches
// megabytes: the requests frame of a 100,000-request core decodes to 6.5
// MB, a scale-10 run's whole core to a few hundred KB. Tests lower it.
var hugeHeapFrom = 4 << 20

// adviseHeap is adviseHugeHeap, replaced by tests that count the advice.
var adviseHeap = adviseHugeHeap
