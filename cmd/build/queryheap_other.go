//go:build !linux

package main

// adviseHugeHeap advises the heap for huge pages on Linux only
// (queryheap_linux.go); elsewhere the heap is left as the runtime maps it.
func adviseHugeHeap() {}
