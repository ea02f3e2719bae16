// Package publish lays a built report out in the bucket layout the edge
// serves (internal/edge): the report's index.html and manifest under
// reports/<report-id>/, every shard script once under detail/ for all
// reports, each object gzip-compressed. It also mints short links.
//
// Publishing is hash-addressed: the report id is derived from the manifest
// (which lists the SHA-256 of every file), shard scripts are named by their
// payload's hash, and an object already present is never rewritten, so a
// second publish of the same report writes nothing and a rebuilt report
// writes only what changed. Nothing is ever removed, so no report can lose
// an object another one shares. Objects are written to a temporary name
// and renamed, so a reader never sees half an object, and index.html goes
// last, so a report is reachable only once all its shards are.
//
// Moving the directory into a real bucket is left to the tools people
// already have (docs/hosting.md).
package publish

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dsight/dsight/internal/edge"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/shard"
)

// Result is what one publish did.
type Result struct {
	ReportID string `json:"report_id"`
	// Path is the report's path on the edge (/r/<id>/); URL prefixes it
	// with the base URL when one was given.
	Path string `json:"path"`
	URL  string `json:"url,omitempty"`
	// Written lists the keys of the objects this publish added, for an
	// upload of only what is new; Existing counts those already there.
	Written      []string `json:"written"`
	Existing     int      `json:"existing"`
	BytesWritten int64    `json:"bytes_written"`
}

var detailName = regexp.MustCompile(`^[0-9a-f]{64}\.js$`)

type object struct {
	key string
	src string // slash path in the report
}

// Report publishes the report in reportDir into the bucket directory.
func Report(reportDir, bucketDir, baseURL string) (*Result, error) {
	pub, id, err := readReport(reportDir)
	if err != nil {
		return nil, err
	}
	m := pub.Manifest
	var objs []object
	for _, f := range m.Files {
		dir, name := path.Split(f.Path)
		switch {
		case dir == report.DetailDir+"/" && detailName.MatchString(name):
			objs = append(objs, object{edge.ShardKey(name), f.Path})
		case f.Path == report.IndexFile || f.Path == report.HeadersFile:
			// index.html goes last; _headers is for static hosts: the
			// edge sets its own headers.
		case f.Path == report.StoreFile:
			// The SQL store is for local readers; the page never loads it.
		default:
			return nil, fmt.Errorf("%s: the manifest lists %s, which the edge layout has no place for", reportDir, f.Path)
		}
	}
	objs = append(objs,
		object{edge.ReportKey(id, report.ManifestFile), report.ManifestFile},
		object{edge.ReportKey(id, report.IndexFile), report.IndexFile})
	want := map[string]string{}
	for _, f := range m.Files {
		want[f.Path] = f.SHA256
	}
	res := &Result{ReportID: id, Path: "/r/" + id + "/", Written: []string{}}
	if baseURL != "" {
		res.URL = strings.TrimRight(baseURL, "/") + res.Path
	}
	for _, o := range objs {
		dst := filepath.Join(bucketDir, filepath.FromSlash(o.key))
		if _, err := os.Stat(dst); err == nil {
			res.Existing++
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		raw, ok := pub.Files[o.src]
		if !ok {
			if raw, err = os.ReadFile(filepath.Join(reportDir, filepath.FromSlash(o.src))); err != nil {
				return nil, err
			}
		}
		if sum, ok := want[o.src]; ok && hexSum(raw) != sum {
			return nil, fmt.Errorf("%s: %s does not match its manifest entry; rebuild the report before publishing it", reportDir, o.src)
		}
		gz, err := shard.Compress(raw)
		if err != nil {
			return nil, err
		}
		if err := writeNew(dst, gz); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, o.key)
		res.BytesWritten += int64(len(gz))
	}
	return res, nil
}

// ReportID is the id the edge serves the report in reportDir under.
func ReportID(reportDir string) (string, error) {
	_, id, err := readReport(reportDir)
	return id, err
}

// readReport reads the report's published form (report.ForPublishing:
// the run's absolute path stays on the builder's machine); the report id
// is the hash of the published manifest.
func readReport(dir string) (*report.Published, string, error) {
	pub, err := report.ForPublishing(dir)
	if err != nil {
		return nil, "", err
	}
	return pub, hexSum(pub.ManifestBytes)[:edge.ReportIDLen], nil
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeNew writes an object under a temporary name beside it and renames
// it into place.
func writeNew(dst string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(dst), ".publish-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), dst)
}

// Link mints the short link for a view of a published report and returns
// its id. view is the "#view=…" fragment, or a whole view link holding it.
// The id is derived from the record, so minting the same link twice gives
// the same id and writes nothing.
func Link(reportDir, bucketDir, view string) (string, error) {
	id, err := ReportID(reportDir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(bucketDir, filepath.FromSlash(edge.ReportKey(id, report.IndexFile)))); err != nil {
		return "", fmt.Errorf("report %s is not published in %s: run dsight publish first", id, bucketDir)
	}
	if i := strings.IndexByte(view, '#'); i > 0 {
		view = view[i:]
	}
	lid, rec, err := edge.Link{Report: id, View: view}.Record()
	if err != nil {
		return "", err
	}
	dst := filepath.Join(bucketDir, filepath.FromSlash(edge.LinkKey(lid)))
	if old, err := os.ReadFile(dst); err == nil {
		if !bytes.Equal(old, rec) {
			return "", fmt.Errorf("link id %s already names another view (%s); refusing to replace it", lid, dst)
		}
		return lid, nil
	}
	return lid, writeNew(dst, rec)
}
