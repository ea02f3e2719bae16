package fuzzlimit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// An input that runs past the limit ends the process with a failure that
// says so, so a fuzz run records it instead of stalling.
func TestHangFails(t *testing.T) {
	if os.Getenv("FUZZLIMIT_CHILD") != "" {
		defer Start(t)()
		time.Sleep(time.Minute)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHangFails$")
	cmd.Env = append(os.Environ(), "FUZZLIMIT_CHILD=1", "DSIGHT_FUZZ_INPUT_LIMIT=200ms")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("child: %v, want exit 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "ran longer than 200ms: a hang") {
		t.Fatalf("child output does not name the hang:\n%s", out)
	}
}

func TestInputWithinLimitPasses(t *testing.T) {
	stop := Start(t)
	stop()
}
