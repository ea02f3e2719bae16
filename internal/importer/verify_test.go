package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A source rewritten during the build with its size kept and its
// modification time put back is still noticed: its inode change time moved.
func TestVerifyNoticesRewriteWithRestoredTime(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("inode change time is read on Linux and the BSDs")
	}
	run := writeRun(t)
	res, err := Import(Options{Run: run})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Verify(); err != nil {
		t.Fatalf("nothing changed yet: %v", err)
	}
	p := filepath.Join(run, "logs/agentic/conc_2/aiperf_artifacts/profile_export.jsonl")
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte(`"value":3000`), []byte(`"value":9000`), 1)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(p); st2.Size() != st.Size() || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatal("the rewrite did not keep size and time")
	}
	if err := res.Verify(); err == nil || !strings.Contains(err.Error(), "changed during the build") {
		t.Fatalf("Verify after a same-size rewrite with its time restored: %v", err)
	}
}
