package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"
)

// After the advice, the heap a question grows into is a mapping the kernel
// may back with huge pages (VmFlags "hg" in /proc/self/smaps): a fresh
// allocation lands in it.
//
// The advice is for a fresh process, a one-shot question's, whose lowest
// free addresses are the room it advises. A test binary that has run the
// package's other tests holds free room below it, where the allocation may
// land instead, so the check runs in a fresh run of this binary.
func TestAdvisedHeapTakesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("the kernel has no transparent huge pages")
	}
	if os.Getenv(freshHeapEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestAdvisedHeapTakesHugePages$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), freshHeapEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestAdvisedHeapTakesHugePages") {
			t.Fatalf("in a fresh process: %v\n%s", err, out)
		}
		return
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

// freshHeapEnv marks the run of the test binary that checks the advice.
const freshHeapEnv = "DSIGHT_TEST_FRESH_HEAP"

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
