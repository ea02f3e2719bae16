package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editManifest rewrites the report's manifest through edit.
func editManifest(t *testing.T, dir string, edit func(m *Manifest)) {
	t.Helper()
	file := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A report received from someone else must not make the reader open files
// outside its detail/ directory, nor read more than the manifest declares.
func TestOpenConfinesPartPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, dir string, m *Manifest)
		want string
	}{
		{"parent path", func(t *testing.T, dir string, m *Manifest) {
			m.Entry.Core.Parts[0].Path = "../../../../etc/passwd"
		}, "inside the report"},
		{"device path", func(t *testing.T, dir string, m *Manifest) {
			m.Entry.Core.Parts[0].Path = "../../../../dev/zero"
		}, "inside the report"},
		{"absolute path", func(t *testing.T, dir string, m *Manifest) {
			m.Entry.Core.Parts[0].Path = "/dev/zero"
		}, "inside the report"},
		{"dotted path", func(t *testing.T, dir string, m *Manifest) {
			p := m.Entry.Core.Parts[0]
			m.Entry.Core.Parts[0].Path = "detail/../detail/" + p.ID + ".js"
		}, "inside the report"},
		{"symlink to a device", func(t *testing.T, dir string, m *Manifest) {
			file := filepath.Join(dir, filepath.FromSlash(m.Entry.Core.Parts[0].Path))
			os.Remove(file)
			if err := os.Symlink("/dev/zero", file); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"file larger than declared", func(t *testing.T, dir string, m *Manifest) {
			file := filepath.Join(dir, filepath.FromSlash(m.Entry.Core.Parts[0].Path))
			f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(make([]byte, 1<<20))
			f.Close()
		}, "more than the"},
		{"huge declared part", func(t *testing.T, dir string, m *Manifest) {
			m.Entry.Core.Parts[0].Bytes = 1 << 62
		}, "outside 0.."},
		{"huge declared shard", func(t *testing.T, dir string, m *Manifest) {
			m.Entry.Core.Bytes = 1 << 62
		}, "declares"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "report")
			if _, err := Write(dataset("job"), assets(t), dir, Options{}); err != nil {
				t.Fatal(err)
			}
			editManifest(t, dir, func(m *Manifest) { tc.edit(t, dir, m) })
			_, err := Open(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// The manifest itself is read only if it is a regular file of bounded size.
func TestOpenRefusesDeviceManifest(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Open: %v", err)
	}
}

// A part whose content is another payload is named a content hash mismatch.
func TestOpenNamesContentHashMismatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	m, err := Write(dataset("job"), assets(t), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	m2, err := Write(dataset("another job"), assets(t), other, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(other, filepath.FromSlash(m2.Entry.Core.Parts[0].Path)))
	if err != nil {
		t.Fatal(err)
	}
	// The other payload under this report's name and id.
	b = []byte(strings.Replace(string(b), m2.Entry.Core.Parts[0].ID, m.Entry.Core.Parts[0].ID, 1))
	file := filepath.Join(dir, filepath.FromSlash(m.Entry.Core.Parts[0].Path))
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	editManifest(t, dir, func(mm *Manifest) {
		mm.Entry.Core.Parts[0].Bytes = m2.Entry.Core.Parts[0].Bytes
		mm.Entry.Core.Bytes = m2.Entry.Core.Bytes
	})
	_, err = Open(dir)
	if err == nil || !strings.Contains(err.Error(), "content hash mismatch") || !strings.Contains(err.Error(), m.Entry.Core.Parts[0].ID+".js") {
		t.Fatalf("Open: %v", err)
	}
}
