package tachometer

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoArrowCompute keeps the Arrow packages that only pqarrow needs
// out of this package, and so out of the dsight binary (Arrow reaches it
// through this package alone): Arrow's compute kernels, Flight and gRPC cost
// binary size and start-up work (package initialisation) on every command.
func TestLinksNoArrowCompute(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasSuffix(dep, "parquet/pqarrow") || strings.Contains(dep, "arrow/compute") ||
			strings.Contains(dep, "arrow/flight") || strings.HasPrefix(dep, "google.golang.org/grpc") {
			t.Errorf("package tachometer links %s", dep)
		}
	}
}
