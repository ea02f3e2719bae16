// Package golden compares test output with files under testdata and
// rewrites them when tests run with -update. Every parser's golden tests use
// it, so the flag, the comparison and the failure message exist once.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Update is set by `go test -update`: goldens are rewritten, not compared.
var Update = flag.Bool("update", false, "rewrite golden files under testdata from the current output")

// Check compares got with the golden file at path, or rewrites the file
// under -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (review, then go test -update): %s", path, FirstDiff(got, want))
	}
}

// FirstDiff describes the first line where got and want differ.
func FirstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\n  got:  %s\n  want: %s", i+1, gl, wl)
		}
	}
	return "identical"
}

// Orphans fails for every golden file matching pattern that has no input,
// according to hasInput, so removed cases do not leave stale expectations.
func Orphans(t testing.TB, pattern string, hasInput func(golden string) bool) {
	t.Helper()
	goldens, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		if !hasInput(g) {
			t.Errorf("%s has no input", g)
		}
	}
}
