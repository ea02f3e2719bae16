package main

import (
	"strings"
	"testing"
)

// build --help documents where the OTel spill goes and that it costs
// about the OTel input's size on disk.
func TestBuildHelpNamesTheSpillDir(t *testing.T) {
	code, stdout, _ := dsight(t, "build", "--help")
	if code != 0 || !strings.Contains(stdout, "--spill-dir DIR") || !strings.Contains(stdout, "about the OTel input's size") {
		t.Fatalf("exit %d; help:\n%s", code, stdout)
	}
}
