package importer

import (
	"path/filepath"
	"strings"
	"testing"
)

// The OTel spans wait on disk in Options.SpillDir: the progress says
// where, and a directory the spill cannot use is an error that names it
// and says what to do.
func TestSpillDirIsNamedAndUsed(t *testing.T) {
	run := writeRun(t)
	dir := t.TempDir()
	var phases []string
	if _, err := Import(Options{Run: run, SpillDir: dir, Progress: func(p string) { phases = append(phases, p) }}); err != nil {
		t.Fatal(err)
	}
	named := false
	for _, p := range phases {
		named = named || strings.Contains(p, "spilling the OTel spans to "+dir)
	}
	if !named {
		t.Fatalf("no progress names the spill directory: %q", phases)
	}
	missing := filepath.Join(dir, "missing")
	_, err := Import(Options{Run: run, SpillDir: missing})
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "--spill-dir") {
		t.Fatalf("a spill directory that does not exist: %v", err)
	}
}
