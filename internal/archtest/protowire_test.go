package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Perfetto export runs in the page's engine, so its encoder may use
// protobuf's wire helpers and nothing else of the protobuf module: the
// reflection runtime (proto, protoreflect, protoimpl) would add megabytes
// to engine.wasm.
func TestWasmLinksOnlyProtowire(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, _ := filepath.Abs("../..")
	cmd := exec.Command(goBin, "list", "-deps", "./wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./wasm: %v", err)
	}
	allowed := map[string]bool{
		"google.golang.org/protobuf/encoding/protowire": true,
		"google.golang.org/protobuf/internal/errors":    true,
		"google.golang.org/protobuf/internal/detrand":   true,
	}
	sawProtowire := false
	for _, dep := range strings.Fields(string(out)) {
		if !strings.HasPrefix(dep, "google.golang.org/protobuf/") {
			continue
		}
		sawProtowire = sawProtowire || dep == "google.golang.org/protobuf/encoding/protowire"
		if !allowed[dep] {
			t.Errorf("the wasm engine links %s; only protowire and what it needs may reach it", dep)
		}
	}
	if !sawProtowire {
		t.Error("the wasm engine does not link protowire: is the Perfetto export still in the engine?")
	}
}
