package golden

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	if d := FirstDiff([]byte("a\nb\nc"), []byte("a\nx\nc")); !strings.Contains(d, "line 2") {
		t.Fatal(d)
	}
	if d := FirstDiff([]byte("a\nb"), []byte("a\nb\nc")); !strings.Contains(d, "line 3") {
		t.Fatal(d)
	}
	if d := FirstDiff([]byte("same"), []byte("same")); d != "identical" {
		t.Fatal(d)
	}
}

func TestCheckAndUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.golden")
	*Update = true
	Check(t, path, []byte("v1\n"))
	*Update = false
	Check(t, path, []byte("v1\n"))
}
