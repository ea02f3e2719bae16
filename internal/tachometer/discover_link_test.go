package tachometer_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/tools/gen/synth"
)

// A final.parquet reached through a link (captures on shared storage) is
// the capture's final file, not skipped with the false warning that the
// capture has none.
func TestDiscoverFollowsLinkedFinal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 20, Timezone: "UTC", Sources: synth.SourceTachometer}); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "logs", "tachometer", "local")
	direct, err := tachometer.Discover(local, false)
	if err != nil {
		t.Fatal(err)
	}
	var final string
	for _, f := range direct.Files {
		if f.Role == tachometer.RoleFinal {
			final = f.Path
		}
	}
	if final == "" {
		t.Skip("the generated capture has no final.parquet")
	}
	elsewhere := filepath.Join(t.TempDir(), "final.parquet")
	if err := os.Rename(final, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, final); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	linked, err := tachometer.Discover(local, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(linked.Files) != len(direct.Files) || len(linked.Warnings) != len(direct.Warnings) {
		t.Fatalf("through the link: %+v %q; directly: %+v %q", linked.Files, linked.Warnings, direct.Files, direct.Warnings)
	}
}
