package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/shard"
)

// A published report holds no byte of the run's absolute path: its
// meta.source_root is the run directory's base name, in the core shard the
// page reads and in the manifest, while the local report keeps the absolute
// path. The published copy stays whole: every file its manifest lists is in
// the bucket with that hash, and the core reassembled from it opens with
// its content hashes checked.
func TestPublishedReportHoldsNoRunPath(t *testing.T) {
	needAssets(t)
	run := genRun(t)
	abs, err := filepath.Abs(run)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	rep, bucket := filepath.Join(tmp, "report"), filepath.Join(tmp, "bucket")
	if code, _, stderr := dsight(t, "build", run, "-o", rep); code != 0 {
		t.Fatal(stderr)
	}
	if root := summaryRoot(t, rep); root != abs {
		t.Fatalf("local report source_root %q, want the absolute run path %q", root, abs)
	}
	code, out, stderr := dsight(t, "publish", rep, "--to", bucket)
	var res struct {
		ReportID string `json:"report_id"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("publish: %d %s %s", code, out, stderr)
	}
	// Every published object, gunzipped, and the reassembled report.
	copyDir := filepath.Join(tmp, "published")
	objects := 0
	err = filepath.WalkDir(bucket, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return err
			}
			if b, err = io.ReadAll(zr); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(bucket, p)
		objects++
		seen := b
		if _, payload, err := shard.OpenPart(b); err == nil {
			// A shard part carries base64 of (mostly) gzip: look inside.
			seen = payload
			if raw, err := shard.Decompress(payload); err == nil {
				seen = raw
			}
		}
		if bytes.Contains(seen, []byte(abs)) || bytes.Contains(seen, []byte(filepath.Dir(abs))) {
			t.Errorf("published %s holds the run's absolute path", rel)
		}
		rel = filepath.ToSlash(strings.TrimSuffix(rel, ".gz"))
		rel = strings.TrimPrefix(rel, "reports/"+res.ReportID+"/")
		if strings.HasPrefix(rel, "reports/") || strings.HasPrefix(rel, "links/") {
			return nil
		}
		dst := filepath.Join(copyDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil || objects < 4 {
		t.Fatalf("bucket: %d objects, %v", objects, err)
	}
	mb, err := os.ReadFile(filepath.Join(copyDir, report.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m report.Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		if f.Path == report.HeadersFile || f.Path == report.StoreFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(copyDir, filepath.FromSlash(f.Path)))
		sum := sha256.Sum256(b)
		if err != nil || hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(b)) != f.Bytes {
			t.Errorf("published %s does not match its manifest entry (%v)", f.Path, err)
		}
	}
	if root := summaryRoot(t, copyDir); root != filepath.Base(abs) {
		t.Fatalf("published core's source_root %q, want %q", root, filepath.Base(abs))
	}
	var pm struct {
		Summary struct {
			Meta struct {
				SourceRoot string `json:"source_root"`
			} `json:"meta"`
		} `json:"summary"`
	}
	if json.Unmarshal(mb, &pm) != nil || pm.Summary.Meta.SourceRoot != filepath.Base(abs) {
		t.Fatalf("published manifest's source_root %q", pm.Summary.Meta.SourceRoot)
	}
	// The local report is untouched.
	if root := summaryRoot(t, rep); root != abs {
		t.Fatalf("publishing changed the local report: source_root %q", root)
	}
}

// summaryRoot is meta.source_root as `dsight query REPORT summary` answers
// it from the report's core shard (hash-checked).
func summaryRoot(t *testing.T, dir string) string {
	t.Helper()
	code, out, stderr := dsight(t, "query", dir, "summary")
	var s struct {
		Meta struct {
			SourceRoot string `json:"source_root"`
		} `json:"meta"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("query %s summary: %d %s %s", dir, code, out, stderr)
	}
	return s.Meta.SourceRoot
}
