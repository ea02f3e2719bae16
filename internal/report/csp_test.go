package report

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The page's policy lists the hash of each of its executable inline
// scripts, exactly as written, and allows nothing else inline or by path.
func TestPagePolicyIsStrict(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(dataset("job"), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindSubmatch(page)
	if meta == nil {
		t.Fatal("no Content-Security-Policy meta element")
	}
	csp := html.UnescapeString(string(meta[1]))
	if want := ContentSecurityPolicy([]byte(`console.log("page")`)); csp != want {
		t.Fatalf("page policy\n%s\nwant ContentSecurityPolicy's\n%s", csp, want)
	}
	var scriptSrc string
	for _, d := range strings.Split(csp, ";") {
		if d = strings.TrimSpace(d); strings.HasPrefix(d, "script-src ") {
			scriptSrc = d
		}
	}
	for _, bad := range []string{"'unsafe-inline'", "file:", "'self'", "*", "'unsafe-eval'"} {
		if strings.Contains(" "+scriptSrc+" ", " "+bad+" ") {
			t.Errorf("script-src allows %s: %s", bad, scriptSrc)
		}
	}
	if !strings.Contains(scriptSrc, "'strict-dynamic'") {
		t.Errorf("script-src lacks 'strict-dynamic': %s", scriptSrc)
	}
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllSubmatch(page, -1)
	if len(scripts) == 0 {
		t.Fatal("no inline script")
	}
	for _, s := range scripts {
		sum := sha256.Sum256(s[1])
		if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(scriptSrc, h) {
			t.Errorf("inline script %.40q… has hash %s, not in %s", s[1], h, scriptSrc)
		}
	}
}
