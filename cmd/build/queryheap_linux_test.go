package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// After the advice, the heap a question grows into is a mapping the kernel
// may back with huge pages (VmFlags "hg" in /proc/self/smaps): a fresh
// allocation lands in it.
func TestAdvisedHeapTakesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("the kernel has no transparent huge pages")
	}
	adviseHugeHeap()
	b := make([]byte, 16<<20)
	flags, err := vmFlagsAt(uintptr(unsafe.Pointer(&b[0])))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("a 16 MB allocation after the advice lies in a mapping with VmFlags %q, want hg among them", flags)
	}
}

// vmFlagsAt is the VmFlags line of the mapping of this process holding addr.
func vmFlagsAt(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 && strings.Contains(line[:strings.IndexByte(line, ' ')], "-") {
			in = lo <= addr && addr < hi
			continue
		}
		if in {
			if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok {
				return strings.TrimSpace(rest), nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}
