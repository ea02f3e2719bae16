package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The page's engine inflates with the standard library and writes nothing,
// so klauspost/compress, the build's deflater, stays out of engine.wasm: a
// second gzip implementation (its init tables alone) only grew it.
func TestWasmLinksOneInflater(t *testing.T) {
	deps := jsDeps(t, "./wasm")
	if !slices.Contains(deps, "compress/flate") {
		t.Fatalf("the wasm engine does not link compress/flate: how does it inflate? (%v)", deps)
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/klauspost/") {
			t.Errorf("the wasm engine links %s; the page inflates with compress/flate and writes no shards", dep)
		}
	}
}

// Native builds keep klauspost's writer: report bytes, and with them the
// content-hash names, are its output, so a build-tag slip that swapped the
// writer would change every report.
func TestNativeShardsWriteWithKlauspost(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, _ := filepath.Abs("../..")
	for pkg, want := range map[string]string{
		"./internal/shard":   "github.com/klauspost/compress/gzip",
		"./internal/catalog": "github.com/klauspost/compress/flate",
	} {
		cmd := exec.Command(goBin, "list", "-f", `{{join .Imports " "}}`, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		if !slices.Contains(strings.Fields(string(out)), want) {
			t.Errorf("%s does not import %s natively: %s", pkg, want, out)
		}
	}
}
