package importer

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// unreadable is a held file whose every read fails.
type unreadable struct{ file }

func (unreadable) Read([]byte) (int, error)          { return 0, errors.New("read after hashing") }
func (unreadable) ReadAt([]byte, int64) (int, error) { return 0, errors.New("read after hashing") }

// A held file (a capture) is hashed by hashHeld on its own goroutine, and
// registering it then takes that digest instead of reading the whole file
// once more before the read can start: once hashed, the file registers
// with its sha256 even though it can no longer be read.
func TestRegisterTakesTheDigestComputedBesideTheRead(t *testing.T) {
	dir := t.TempDir()
	raw := make([]byte, 3<<20+17)
	for i := range raw {
		raw[i] = byte(i*31 + i>>9)
	}
	path := filepath.Join(dir, "final.parquet")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	b := nsightBuild(dir)
	defer b.closeHeld()
	if _, err := b.openHeld(path); err != nil {
		t.Fatal(err)
	}
	b.hashHeld()
	h := b.held[path]
	if _, ok := h.sum(); !ok {
		t.Fatal("hashHeld started no digest")
	}
	h.f = unreadable{h.f}
	id, rel, err := b.register(path, "tachometer_raw")
	if err != nil {
		t.Fatal(err)
	}
	src := b.d.Sources[id]
	if rel != "final.parquet" || src.SHA256 != fmt.Sprintf("%x", sha256.Sum256(raw)) || src.Bytes != int64(len(raw)) {
		t.Fatalf("registered %q as %+v", rel, src)
	}
}
