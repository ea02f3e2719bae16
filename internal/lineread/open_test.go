package lineread

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Open refuses pipes and devices by name and without blocking.
func TestOpenRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "final.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for path, want := range map[string]string{fifo: "named pipe", "/dev/null": "character device", t.TempDir(): "directory"} {
		done := make(chan error, 1)
		go func() {
			f, err := Open(path)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
				t.Errorf("Open(%s): %v, want it refused as a %s", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Open(%s) blocks", path)
		}
	}
	ok := filepath.Join(t.TempDir(), "x")
	os.WriteFile(ok, []byte("a\n"), 0o644)
	f, err := Open(ok)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
