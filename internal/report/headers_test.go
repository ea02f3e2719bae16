package report

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var contentNamed = regexp.MustCompile(`^detail/[0-9a-f]{64}\.js$`)

// The policy sent as a header is the one the page declares in its meta
// element.
func TestContentSecurityPolicyIsThePagesOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(dataset("job"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindSubmatch(page)
	if meta == nil {
		t.Fatal("index.html declares no Content-Security-Policy")
	}
	headers, err := os.ReadFile(filepath.Join(dir, HeadersFile))
	if err != nil {
		t.Fatal(err)
	}
	policy := html.UnescapeString(string(meta[1]))
	if n := strings.Count(string(headers), "  Content-Security-Policy: "+policy+"\n"); n != 2 {
		t.Fatalf("_headers sends the page's policy %d times, want / and /index.html:\n%s\npage: %s", n, headers, policy)
	}
}

func TestHeadersFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	m, err := Write(dataset("job"), assets(t), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, HeadersFile))
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	for _, want := range []string{
		"/detail/*\n  Cache-Control: public, max-age=31536000, immutable\n  Content-Type: text/javascript; charset=utf-8\n",
		"/index.html\n  Cache-Control: no-cache\n",
		"  Content-Security-Policy: default-src 'none'; script-src 'sha256-",
		"/manifest.json\n  Cache-Control: no-cache\n",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("_headers lacks %q:\n%s", want, h)
		}
	}
	// Everything but index.html, the manifest and _headers is named by its
	// content, so the immutable rule covers every other file.
	for _, f := range m.Files {
		switch {
		case f.Path == IndexFile || f.Path == HeadersFile:
		case contentNamed.MatchString(f.Path):
		default:
			t.Errorf("%s is neither index.html nor a content-named detail file", f.Path)
		}
	}
	// No absolute URL: the report opens under any path prefix.
	html, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	for _, abs := range []string{`src="/`, `href="/`, `"/detail/`} {
		if strings.Contains(string(html), abs) {
			t.Errorf("index.html holds the absolute reference %s", abs)
		}
	}
}

// The _headers, nginx and Caddy lines in docs/hosting.md send the same
// policy, with the page script's hash (which each dsight version has its
// own) written HASH.
func TestHostingDocsCarryThePolicy(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "hosting.md"))
	if err != nil {
		t.Fatal(err)
	}
	policy := regexp.MustCompile(`'sha256-[^']*'`).ReplaceAllString(ContentSecurityPolicy([]byte("page")), "'sha256-HASH'")
	if n := strings.Count(string(doc), policy); n < 3 {
		t.Fatalf("docs/hosting.md carries the policy %d times, want the _headers, nginx and Caddy lines:\n%s", n, policy)
	}
}
