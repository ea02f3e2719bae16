package report

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"
)

// On Linux the new report replaces the old one in one step: at no point of
// the swap is the output path empty.
func TestSwapLeavesNoInstantWithoutReport(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the one-step exchange is Linux's renameat2")
	}
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(dataset("first"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	missing := false
	defer func(old func(string)) { betweenRenames = old }(betweenRenames)
	betweenRenames = func(d string) {
		if _, err := os.Lstat(d); err != nil {
			missing = true
		}
	}
	if _, err := Write(dataset("second"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if missing {
		t.Fatal("the output path held no report during the swap")
	}
	got, err := Open(dir)
	if err != nil || got.Meta.Job != "second" {
		t.Fatalf("after the swap: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".report.dsight-stage-*")); len(leftovers) != 0 {
		t.Fatalf("the old report was left behind: %v", leftovers)
	}
}

// Where the exchange is unavailable, two renames still restore the old
// report when the second fails.
func TestSwapFallbackRestores(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "report")
	if _, err := Write(dataset("first"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	// A stage that does not exist makes the second rename fail.
	if err := swapByRenames(filepath.Join(root, "missing-stage"), dir); err == nil {
		t.Fatal("swap of a missing stage succeeded")
	}
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("the previous report was not restored")
	}
}

// A stage is abandoned when no build holds its lock, whatever process id
// its name carries: in a container every build may run as PID 1.
func TestAbandonedStageOfALiveProcessIDIsCleaned(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "report")
	for _, pid := range []string{"1", strconv.Itoa(os.Getpid())} {
		stale := filepath.Join(root, stagePrefix(dir)+pid+"-x")
		if err := os.MkdirAll(filepath.Join(stale, "detail"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(stale+".lock", nil, 0o644)
	}
	if _, err := Write(dataset("job"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".report.dsight-stage-*")); len(left) != 0 {
		t.Fatalf("abandoned stages kept: %v", left)
	}
}

// A stage whose lock is held belongs to a running build and is kept, even
// when its name carries the id of a process that no longer exists.
func TestLockedStageIsKept(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "report")
	live := filepath.Join(root, stagePrefix(dir)+"999999999-y")
	if err := os.Mkdir(live, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.Create(live + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := lockFile(lock); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dataset("job"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("a live build's stage was removed: %v", err)
	}
}
