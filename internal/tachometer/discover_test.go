package tachometer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		mkdir(t, p)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func relFiles(t *testing.T, root string, c *Capture) []string {
	t.Helper()
	var out []string
	for _, f := range c.Files {
		rel, err := filepath.Rel(root, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(f.Role)+":"+filepath.ToSlash(rel))
	}
	return out
}

func TestDiscover(t *testing.T) {
	tests := []struct {
		name     string
		files    []string
		root     string // relative to the temp dir
		want     []string
		warnings int
		err      string
	}{
		{
			name:  "final supersedes compacted shards, tail kept",
			files: []string{"local/final.parquet", "local/incomplete-1.parquet", "local/out-7.parquet", "local/current.arrow", "local/notes.txt"},
			root:  "local",
			want:  []string{"final:final.parquet", "tail:current.arrow"},
		},
		{
			name:     "shards in sequence order without final",
			files:    []string{"local/out-10.parquet", "local/out-2.parquet", "local/incomplete-3.parquet", "local/current.arrow"},
			root:     "local",
			want:     []string{"shard:incomplete-3.parquet", "shard:out-2.parquet", "shard:out-10.parquet", "tail:current.arrow"},
			warnings: 1,
		},
		{
			name:  "one leaf below the root",
			files: []string{"local/run-1/final.parquet", "local/run-1/current.arrow"},
			root:  "local",
			want:  []string{"final:run-1/final.parquet", "tail:run-1/current.arrow"},
		},
		{
			name:  "upload mirror ignored",
			files: []string{"tachometer/local/final.parquet", "tachometer/upload/final.parquet", "tachometer/upload/out-1.parquet"},
			root:  "tachometer",
			want:  []string{"final:local/final.parquet"},
		},
		{
			name:  "several leaves",
			files: []string{"local/a/final.parquet", "local/b/final.parquet"},
			root:  "local",
			err:   "select one with --metrics",
		},
		{
			name:     "explicit file",
			files:    []string{"local/a/out-1.parquet"},
			root:     "local/a/out-1.parquet",
			want:     []string{"single:."},
			warnings: 1,
		},
		{
			name:  "empty leaf",
			files: []string{"local/readme.txt"},
			root:  "local",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				touch(t, filepath.Join(dir, f))
			}
			root := filepath.Join(dir, tt.root)
			c, err := Discover(root, true)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := relFiles(t, root, c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("files = %q, want %q", got, tt.want)
			}
			if len(c.Warnings) != tt.warnings {
				t.Errorf("warnings = %q, want %d", c.Warnings, tt.warnings)
			}
		})
	}
}

func TestDiscoverMissingRoot(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "tachometer", "local")
	c, err := Discover(missing, false)
	if err != nil || len(c.Files) != 0 {
		t.Fatalf("default root absent: got %v, %v; want an empty capture", c, err)
	}
	if _, err := Discover(missing, true); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("explicit missing path: err = %v", err)
	}
}

func TestNaturalLess(t *testing.T) {
	ordered := []string{"a", "a1", "a2", "a02", "a10", "b", "out-1.parquet", "out-9.parquet", "out-10.parquet"}
	for i := range ordered {
		for j := range ordered {
			if got, want := naturalLess(ordered[i], ordered[j]), i < j; got != want {
				t.Errorf("naturalLess(%q, %q) = %v, want %v", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func TestSniff(t *testing.T) {
	for head, want := range map[string]Encoding{
		"PAR1\x15\x04":     EncodingParquet,
		"ARROW1\x00\x00":   EncodingArrowFile,
		"\xff\xff\xff\xff": EncodingArrowStream,
		"PAR":              EncodingArrowStream,
	} {
		if got := Sniff([]byte(head)); got != want {
			t.Errorf("Sniff(%q) = %s, want %s", head, got, want)
		}
	}
}
