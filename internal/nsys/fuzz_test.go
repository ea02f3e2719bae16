package nsys

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/nsys/nsystest"
)

// FuzzRead feeds arbitrary bytes as an export: Read returns a profile or an
// error, never panics, and finishes within fuzzlimit's per-input limit.
func FuzzRead(f *testing.F) {
	dir := f.TempDir()
	seed := filepath.Join(dir, "seed.sqlite")
	if err := nsystest.Write(seed, base()); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, "front_frontend_0.sqlite")
	f.Add([]byte("SQLite format 3\x00"), "h_decode_w0_profile_gpu0-1.sqlite")
	f.Add([]byte{}, "x.sqlite")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		if filepath.Base(name) != name || name == "" || name == "." || name == ".." {
			return
		}
		path := filepath.Join(t.TempDir(), "in.sqlite")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer fuzzlimit.Start(t)()
		p, err := Read(path, name, Options{MaxEvents: 1000})
		if err == nil && int64(len(p.Ranges)) > p.Limit {
			t.Errorf("kept %d ranges over the limit %d", len(p.Ranges), p.Limit)
		}
	})
}
