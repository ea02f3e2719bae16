package importer

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// One pass serves every reader whole, also when one of them stops early or
// the first one fails.
func TestFanOut(t *testing.T) {
	data := bytes.Repeat([]byte("line of a worker log\n"), 50000) // > 1 MB: many buffers
	var got1, got2 []byte
	if err := fanOut(bytes.NewReader(data), func(r io.Reader) (err error) {
		got1, err = io.ReadAll(r)
		return err
	}, func(r io.Reader) (err error) {
		got2, err = io.ReadAll(r)
		return err
	}); err != nil || !bytes.Equal(got1, data) || !bytes.Equal(got2, data) {
		t.Fatalf("err %v, got %d and %d bytes of %d", err, len(got1), len(got2), len(data))
	}

	// A reader that stops early (its own error) holds nobody back.
	got1 = nil
	if err := fanOut(bytes.NewReader(data), func(r io.Reader) (err error) {
		got1, err = io.ReadAll(r)
		return err
	}, func(r io.Reader) error {
		io.ReadFull(r, make([]byte, 10))
		return errors.New("stopped")
	}); err != nil || !bytes.Equal(got1, data) {
		t.Fatalf("err %v, got %d bytes of %d", err, len(got1), len(data))
	}

	// The first reader stopping short still feeds the others to the end.
	got2 = nil
	if err := fanOut(bytes.NewReader(data), func(r io.Reader) error {
		_, err := io.ReadFull(r, make([]byte, 10))
		return err
	}, func(r io.Reader) (err error) {
		got2, err = io.ReadAll(r)
		return err
	}); err != nil || !bytes.Equal(got2, data) {
		t.Fatalf("err %v, got %d bytes of %d", err, len(got2), len(data))
	}

	// The first reader's failure is the result, and the others see it.
	boom := errors.New("boom")
	var seen error
	err := fanOut(bytes.NewReader(data), func(r io.Reader) error {
		io.ReadFull(r, make([]byte, 100))
		return boom
	}, func(r io.Reader) error {
		_, seen = io.ReadAll(r)
		return seen
	})
	if !errors.Is(err, boom) || !errors.Is(seen, boom) {
		t.Fatalf("err %v, the other reader saw %v", err, seen)
	}
}

// Discovery over the inventory finds what globbing the directory finds.
func TestInventoryGlobMatchesTheDirectory(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{
		"profile_export.jsonl", "agentic/a/profile_export.jsonl", "agentic/b/aiperf_artifacts/profile_export.jsonl",
		"artifacts/x/profile_export.jsonl", "artifacts/x/y/profile_export.jsonl", "requests.jsonl",
		"agentperf/requests.jsonl", "agentperf/p/requests.jsonl", "agentperf/p/q/requests.jsonl",
		".hidden/profile_export.jsonl", "artifacts/.h/profile_export.jsonl", "otel/traces.jsonl", "otel/c/traces.jsonl",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "artifacts", "dir", "profile_export.jsonl"), 0o755); err != nil {
		t.Fatal(err) // a directory by the export's name is not an export
	}
	// A link to an export is read like one.
	if err := os.MkdirAll(filepath.Join(root, "agentperf", "link"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "requests.jsonl"), filepath.Join(root, "agentperf", "link", "requests.jsonl")); err != nil {
		t.Fatal(err)
	}
	inv, err := walkRun(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := inv.glob(clientGlobs...)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, g := range clientGlobs {
		m, _ := filepath.Glob(filepath.Join(root, g))
		for _, p := range m {
			if st, err := os.Stat(p); err == nil && !st.IsDir() && !slices.Contains(want, p) {
				want = append(want, p)
			}
		}
	}
	sort.Strings(want)
	if !slices.Equal(got, want) || len(want) < 8 {
		t.Fatalf("inventory finds\n  %s\nthe directory\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
