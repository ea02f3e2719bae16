package archtest

import (
	"strings"
	"testing"
)

// The Perfetto export runs in the page's engine, so its encoder may use
// protobuf's wire helpers and nothing else of the protobuf module: the
// reflection runtime (proto, protoreflect, protoimpl) would add megabytes
// to engine.wasm.
func TestWasmLinksOnlyProtowire(t *testing.T) {
	allowed := map[string]bool{
		"google.golang.org/protobuf/encoding/protowire": true,
		"google.golang.org/protobuf/internal/errors":    true,
		"google.golang.org/protobuf/internal/detrand":   true,
	}
	sawProtowire := false
	for _, dep := range jsDeps(t, "./wasm") {
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
