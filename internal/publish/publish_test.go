package publish

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/edge"
	"github.com/dsight/dsight/internal/report"
)

// writeReport lays out a minimal report: index.html, _headers, the named
// detail scripts and a manifest listing them with their hashes.
func writeReport(t *testing.T, dir string, index string, details map[string]string) {
	t.Helper()
	files := map[string]string{report.IndexFile: index, report.HeadersFile: string(report.Headers(report.ContentSecurityPolicy([]byte(index))))}
	for name, body := range details {
		files["detail/"+name] = body
	}
	m := report.Manifest{Generator: report.Generator, FormatVersion: report.FormatVersion}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		m.Files = append(m.Files, report.FileEntry{Path: p, Bytes: int64(len(body)), SHA256: sum(body)})
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, report.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func name(c byte) string { return strings.Repeat(string(c), 64) + ".js" }

// snapshot maps every object in the bucket to its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, _ := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}

func gunzip(t *testing.T, s string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPublishIsHashAddressedAndAdditive(t *testing.T) {
	tmp := t.TempDir()
	bucket := filepath.Join(tmp, "bucket")
	a := filepath.Join(tmp, "a")
	writeReport(t, a, "<p>a</p>", map[string]string{name('a'): "shard a", name('b'): "shard b"})
	if err := os.MkdirAll(filepath.Join(bucket, "reports", "ffffffffffffffffffffffff"), 0o755); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(bucket, "reports", "ffffffffffffffffffffffff", "index.html.gz")
	os.WriteFile(foreign, []byte("another report"), 0o644)

	r1, err := Report(a, bucket, "https://edge.example/")
	if err != nil {
		t.Fatal(err)
	}
	if !edge.ValidReportID(r1.ReportID) || r1.URL != "https://edge.example/r/"+r1.ReportID+"/" {
		t.Fatalf("id %q url %q", r1.ReportID, r1.URL)
	}
	want := []string{edge.ShardKey(name('a')), edge.ShardKey(name('b')), edge.ReportKey(r1.ReportID, "manifest.json"), edge.ReportKey(r1.ReportID, "index.html")}
	if strings.Join(r1.Written, " ") != strings.Join(want, " ") {
		t.Fatalf("wrote %v, want %v (index.html last)", r1.Written, want)
	}
	first := snapshot(t, bucket)
	if gunzip(t, first[edge.ShardKey(name('a'))]) != "shard a" || gunzip(t, first[edge.ReportKey(r1.ReportID, "index.html")]) != "<p>a</p>" {
		t.Fatal("objects do not hold the report's bytes")
	}

	// The same report again: nothing written, nothing changed.
	r2, err := Report(a, bucket, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Written) != 0 || r2.Existing != 4 || r2.ReportID != r1.ReportID {
		t.Fatalf("re-publish wrote %v (existing %d)", r2.Written, r2.Existing)
	}

	// A rebuilt report sharing one shard: only what is new is written,
	// and every object of the first report and the foreign one stays.
	b := filepath.Join(tmp, "b")
	writeReport(t, b, "<p>b</p>", map[string]string{name('a'): "shard a", name('c'): "shard c"})
	r3, err := Report(b, bucket, "")
	if err != nil {
		t.Fatal(err)
	}
	if r3.ReportID == r1.ReportID {
		t.Fatal("two reports got one id")
	}
	want = []string{edge.ShardKey(name('c')), edge.ReportKey(r3.ReportID, "manifest.json"), edge.ReportKey(r3.ReportID, "index.html")}
	if strings.Join(r3.Written, " ") != strings.Join(want, " ") || r3.Existing != 1 {
		t.Fatalf("wrote %v existing %d, want %v", r3.Written, r3.Existing, want)
	}
	after := snapshot(t, bucket)
	for k, v := range first {
		if after[k] != v {
			t.Errorf("publishing another report changed or removed %s", k)
		}
	}
	for k := range after {
		if strings.Contains(k, ".publish-") {
			t.Errorf("temporary file %s left behind", k)
		}
	}
}

func TestPublishRefusesTamperedReports(t *testing.T) {
	tmp := t.TempDir()
	a := filepath.Join(tmp, "a")
	writeReport(t, a, "<p>a</p>", map[string]string{name('a'): "shard a"})
	os.WriteFile(filepath.Join(a, "detail", name('a')), []byte("tampered"), 0o644)
	if _, err := Report(a, filepath.Join(tmp, "bucket"), ""); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Report(tmp, filepath.Join(tmp, "bucket"), ""); err == nil {
		t.Fatal("published a directory that is not a report")
	}
}

// dirStore reads the bucket directory as the local workerd's disk service
// does.
type dirStore string

func (d dirStore) Get(_ context.Context, key string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(string(d), filepath.FromSlash(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, edge.ErrNotFound
	}
	return b, err
}

func (d dirStore) Has(ctx context.Context, key string) (bool, error) {
	_, err := d.Get(ctx, key)
	if errors.Is(err, edge.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func get(t *testing.T, h http.Handler, target string) (*http.Response, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "http://edge.test"+target, nil))
	b, _ := io.ReadAll(w.Result().Body)
	return w.Result(), string(b)
}

// What publish writes is what the edge serves, and links redirect to it.
func TestPublishedLayoutServesAndLinks(t *testing.T) {
	tmp := t.TempDir()
	bucket := filepath.Join(tmp, "bucket")
	a := filepath.Join(tmp, "a")
	writeReport(t, a, "<p>a</p>", map[string]string{name('a'): "shard a"})
	view := "#view=%7B%22range%22%3A%5B1%2C2%5D%7D"
	if _, err := Link(a, bucket, view); err == nil {
		t.Fatal("minted a link to a report that is not published")
	}
	res, err := Report(a, bucket, "")
	if err != nil {
		t.Fatal(err)
	}
	h := &edge.Handler{Store: dirStore(bucket)}
	if r, body := get(t, h, res.Path); r.StatusCode != 200 || body != "<p>a</p>" {
		t.Fatalf("index: %d %q", r.StatusCode, body)
	}
	if r, body := get(t, h, res.Path+"detail/"+name('a')); r.StatusCode != 200 || body != "shard a" {
		t.Fatalf("shard: %d %q", r.StatusCode, body)
	}
	id, err := Link(a, bucket, "https://edge.example/r/"+res.ReportID+"/"+view)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Link(a, bucket, view)
	if err != nil || again != id || !edge.ValidLinkID(id) {
		t.Fatalf("minting twice gave %q then %q (%v)", id, again, err)
	}
	r, _ := get(t, h, "/v/"+id)
	if r.StatusCode != 302 || r.Header.Get("Location") != "../r/"+res.ReportID+"/"+view {
		t.Fatalf("link: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	rec, _ := os.ReadFile(filepath.Join(bucket, filepath.FromSlash(edge.LinkKey(id))))
	if !bytes.Contains(rec, []byte(res.ReportID)) || bytes.Count(rec, []byte(":")) != 2 {
		t.Fatalf("the link record holds more than the report and fragment: %s", rec)
	}
	for _, bad := range []string{"view=1", "#view=<b>", "#other"} {
		if _, err := Link(a, bucket, bad); err == nil {
			t.Errorf("minted a link for %q", bad)
		}
	}
}
