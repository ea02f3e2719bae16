package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The page's engine inflates with klauspost's inflater, as every other
// build does: the standard library's reads each byte through an
// io.ByteReader call, which under wasm made a request's first answer from
// its evidence chunk 1.1–1.3 ms slower (docs/measurements.md, issue 17).
// One inflater is linked: a build-tag file that brought the standard
// library's back for the page would grow the wasm by both.
func TestWasmInflatesWithKlauspost(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, _ := filepath.Abs("../..")
	for pkg, want := range map[string][2]string{
		"./internal/shard":   {"github.com/klauspost/compress/gzip", "compress/gzip"},
		"./internal/catalog": {"github.com/klauspost/compress/flate", "compress/flate"},
	} {
		cmd := exec.Command(goBin, "list", "-f", `{{join .Imports " "}}`, pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		imports := strings.Fields(string(out))
		if !slices.Contains(imports, want[0]) || slices.Contains(imports, want[1]) {
			t.Errorf("%s under GOOS=js imports %s; want %s and not %s", pkg, out, want[0], want[1])
		}
	}
	if !slices.Contains(jsDeps(t, "./wasm"), "github.com/klauspost/compress/flate") {
		t.Error("the wasm engine does not link klauspost's inflater")
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
