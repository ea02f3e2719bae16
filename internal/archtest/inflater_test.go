package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// importsFor lists the packages pkg imports directly, from its non-test
// files, when built for goos/goarch.
func importsFor(t *testing.T, pkg, goos, goarch string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, _ := filepath.Abs("../..")
	cmd := exec.Command(goBin, "list", "-f", `{{join .Imports " "}}`, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// The page's engine inflates with klauspost's inflater, as every other
// build does: the standard library's reads each byte through an
// io.ByteReader call, which under wasm made a request's first answer from
// its evidence chunk 1.1–1.3 ms slower (docs/measurements.md, issue 17).
// One inflater is linked: a build-tag file that brought the standard
// library's back for the page would grow the wasm by both. Shards' gzip
// members are read by internal/shard around that inflater: a gzip package
// (klauspost's wraps the standard library's) would link compress/gzip and
// its time handling, ~100 KB of the page's wasm (docs/measurements.md).
func TestWasmInflatesWithKlauspost(t *testing.T) {
	for pkg, want := range map[string][2]string{
		"./internal/shard":   {"github.com/klauspost/compress/flate", "compress/flate"},
		"./internal/catalog": {"github.com/klauspost/compress/flate", "compress/flate"},
	} {
		imports := importsFor(t, pkg, "js", "wasm")
		if !slices.Contains(imports, want[0]) || slices.Contains(imports, want[1]) {
			t.Errorf("%s under GOOS=js imports %v; want %s and not %s", pkg, imports, want[0], want[1])
		}
	}
	deps := jsDeps(t, "./wasm")
	if !slices.Contains(deps, "github.com/klauspost/compress/flate") {
		t.Error("the wasm engine does not link klauspost's inflater")
	}
	for _, gz := range []string{"compress/gzip", "github.com/klauspost/compress/gzip"} {
		if slices.Contains(deps, gz) {
			t.Errorf("the wasm engine links %s; shards' gzip members are read by internal/shard", gz)
		}
	}
}

// Native builds keep klauspost's writer: report bytes, and with them the
// content-hash names, are its output, so a build-tag slip that swapped the
// writer would change every report.
func TestNativeShardsWriteWithKlauspost(t *testing.T) {
	for pkg, want := range map[string]string{
		"./internal/shard":   "github.com/klauspost/compress/gzip",
		"./internal/catalog": "github.com/klauspost/compress/flate",
	} {
		if imports := importsFor(t, pkg, "linux", "amd64"); !slices.Contains(imports, want) {
			t.Errorf("%s does not import %s natively: %v", pkg, want, imports)
		}
	}
}
