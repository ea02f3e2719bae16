package edge

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// mapStore is a Store over a map; fail makes every read fail.
type mapStore struct {
	objects map[string][]byte
	fail    bool
}

var errBroken = errors.New("storage broken at reports/secret-key")

func (s *mapStore) Get(_ context.Context, key string) ([]byte, error) {
	if s.fail {
		return nil, errBroken
	}
	b, ok := s.objects[key]
	if !ok {
		return nil, ErrNotFound
	}
	return b, nil
}

func (s *mapStore) Has(ctx context.Context, key string) (bool, error) {
	_, err := s.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

const (
	rid    = "0123456789abcdef01234567"
	shard  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	page   = "<!doctype html><title>report</title>"
	script = `__dsightShard("aaaa","AAAA")`
	linkID = "00112233aabb"
)

func fixture(t testing.TB) *mapStore {
	return &mapStore{objects: map[string][]byte{
		ReportKey(rid, "index.html"):    gz(t, page),
		ReportKey(rid, "manifest.json"): gz(t, `{"files":[]}`),
		ShardKey(shard + ".js"):         gz(t, script),
		LinkKey(linkID):                 []byte(`{"report":"` + rid + `","view":"#view=%7B%22a%22%3A1%7D"}`),
		LinkKey("ffffffffffff"):         []byte(`{"report":"` + rid + `","view":"#view=x\r\nSet-Cookie: a=b"}`),
		"secret":                        gz(t, "secret"),
	}}
}

type req struct {
	method, target string
	header         map[string]string
}

func do(t testing.TB, s Store, q req) *http.Response {
	return doWith(t, &Handler{Store: s, Mint: true}, q)
}

func doWith(t testing.TB, h *Handler, q req) *http.Response {
	t.Helper()
	if q.method == "" {
		q.method = http.MethodGet
	}
	r := httptest.NewRequest(q.method, "http://edge.test"+q.target, nil)
	for k, v := range q.header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func bodyOf(t testing.TB, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRouting(t *testing.T) {
	s := fixture(t)
	cases := []struct {
		target string
		status int
		ctype  string
		body   string
		cache  string
	}{
		{"/r/" + rid + "/", 200, "text/html; charset=utf-8", page, "no-cache"},
		{"/r/" + rid + "/index.html", 200, "text/html; charset=utf-8", page, "no-cache"},
		{"/r/" + rid + "/manifest.json", 200, "application/json", `{"files":[]}`, cacheImmutable},
		{"/r/" + rid + "/detail/" + shard + ".js", 200, "text/javascript; charset=utf-8", script, cacheImmutable},
		{"/r/" + rid + "/detail/" + shard + ".js?x=1", 200, "text/javascript; charset=utf-8", script, cacheImmutable},
		{"/r/" + rid, 301, "", "", ""},
		{"/", 404, "", "", ""},
		{"/r/", 404, "", "", ""},
		{"/r/" + rid + "/_headers", 404, "", "", ""},
		{"/r/" + rid + "/detail/", 404, "", "", ""},
		{"/r/" + rid + "/detail/" + shard + ".js/x", 404, "", "", ""},
		{"/r/" + rid + "/detail/" + strings.ToUpper(shard) + ".js", 404, "", "", ""},
		// a shard under a report that does not exist is not served
		{"/r/ffffffffffffffffffffffff/detail/" + shard + ".js", 404, "", "", ""},
		{"/r/ffffffffffffffffffffffff/", 404, "", "", ""},
		{"/detail/" + shard + ".js", 404, "", "", ""},
		{"/v/000000000000", 404, "", "", ""},
	}
	for _, c := range cases {
		res := do(t, s, req{target: c.target})
		b := bodyOf(t, res)
		if res.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.target, res.StatusCode, c.status)
			continue
		}
		if c.status != 200 {
			continue
		}
		if got := res.Header.Get("Content-Type"); got != c.ctype {
			t.Errorf("%s: content type %q, want %q", c.target, got, c.ctype)
		}
		if got := res.Header.Get("Cache-Control"); got != c.cache {
			t.Errorf("%s: cache %q, want %q", c.target, got, c.cache)
		}
		if b != c.body {
			t.Errorf("%s: body %q, want %q", c.target, b, c.body)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", c.target)
		}
	}
	res := do(t, s, req{target: "/r/" + rid})
	if loc := res.Header.Get("Location"); loc != rid+"/" {
		t.Errorf("redirect to %q; want the relative %q", loc, rid+"/")
	}
}

func TestTraversalAndOversizedIDs(t *testing.T) {
	s := fixture(t)
	for _, target := range []string{
		"/r/" + rid + "/../../secret",
		"/r/" + rid + "/detail/../../../secret",
		"/r/" + rid + "/%2e%2e/%2e%2e/secret",
		"/r/" + rid + "/%2E%2E%2Fsecret",
		"/r/" + rid + "/%252e%252e/secret",
		"/r/" + rid + "/detail/%2e%2e%5csecret",
		"/r/" + rid + `/detail/..\..\secret`,
		"/r/" + rid + "/detail/" + shard + "%2ejs",
		"/r/%2e%2e/secret",
		"/r/..%2fsecret",
		"/v/..%2f..%2fsecret",
		"/secret",
		"//secret",
		"/r/" + rid + "0/",
		"/r/" + rid + strings.Repeat("0", 4000) + "/",
		"/r/" + rid[:23] + "/",
		"/v/" + linkID + "0",
		"/v/" + strings.Repeat("a", 10000),
		"/r/" + rid + "/detail/" + shard + "a.js",
	} {
		res := do(t, s, req{target: target})
		b := bodyOf(t, res)
		if res.StatusCode != 404 {
			t.Errorf("%s: status %d, want 404", target, res.StatusCode)
		}
		if strings.Contains(b, "secret") {
			t.Errorf("%s: body leaks %q", target, b)
		}
	}
}

func TestMethods(t *testing.T) {
	s := fixture(t)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"} {
		res := do(t, s, req{method: m, target: "/r/" + rid + "/"})
		if res.StatusCode != 405 || res.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: status %d allow %q, want 405 with Allow", m, res.StatusCode, res.Header.Get("Allow"))
		}
	}
	get := do(t, s, req{target: "/r/" + rid + "/detail/" + shard + ".js", header: map[string]string{"Accept-Encoding": "gzip"}})
	head := do(t, s, req{method: "HEAD", target: "/r/" + rid + "/detail/" + shard + ".js", header: map[string]string{"Accept-Encoding": "gzip"}})
	if head.StatusCode != 200 || bodyOf(t, head) != "" {
		t.Fatalf("HEAD: status %d with a body", head.StatusCode)
	}
	for _, k := range []string{"Content-Length", "ETag", "Content-Type", "Content-Encoding", "Cache-Control"} {
		if head.Header.Get(k) != get.Header.Get(k) || get.Header.Get(k) == "" {
			t.Errorf("HEAD %s = %q, GET %q", k, head.Header.Get(k), get.Header.Get(k))
		}
	}
}

func TestEncodings(t *testing.T) {
	s := fixture(t)
	target := "/r/" + rid + "/detail/" + shard + ".js"
	stored := s.objects[ShardKey(shard+".js")]
	for _, c := range []struct {
		ae      string
		gzipped bool
	}{
		{"gzip, deflate, br", true},
		{"br;q=1.0, gzip;q=0.5", true},
		{"*", true},
		{"", false},
		{"identity", false},
		{"br", false},
		{"gzip;q=0", false},
		{"gzip; q=0.0", false},
	} {
		res := do(t, s, req{target: target, header: map[string]string{"Accept-Encoding": c.ae}})
		b := bodyOf(t, res)
		if c.gzipped {
			if res.Header.Get("Content-Encoding") != "gzip" || b != string(stored) {
				t.Errorf("%q: want the stored gzip bytes passed through, got encoding %q", c.ae, res.Header.Get("Content-Encoding"))
			}
			if res.Header.Get("ETag") != `"`+shard+`-gzip"` {
				t.Errorf("%q: etag %s", c.ae, res.Header.Get("ETag"))
			}
		} else {
			if res.Header.Get("Content-Encoding") != "" || b != script {
				t.Errorf("%q: want decoded bytes, got encoding %q body %q", c.ae, res.Header.Get("Content-Encoding"), b)
			}
			if res.Header.Get("ETag") != `"`+shard+`"` {
				t.Errorf("%q: etag %s", c.ae, res.Header.Get("ETag"))
			}
		}
		if res.Header.Get("Content-Length") != itoa(len(b)) {
			t.Errorf("%q: content length %s for %d bytes", c.ae, res.Header.Get("Content-Length"), len(b))
		}
		if res.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%q: no Vary", c.ae)
		}
	}
}

func TestConditional(t *testing.T) {
	s := fixture(t)
	for _, target := range []string{"/r/" + rid + "/", "/r/" + rid + "/detail/" + shard + ".js"} {
		first := do(t, s, req{target: target, header: map[string]string{"Accept-Encoding": "gzip"}})
		tag := first.Header.Get("ETag")
		if tag == "" {
			t.Fatalf("%s: no ETag", target)
		}
		for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
			res := do(t, s, req{target: target, header: map[string]string{"Accept-Encoding": "gzip", "If-None-Match": inm}})
			if res.StatusCode != 304 || bodyOf(t, res) != "" || res.Header.Get("ETag") != tag {
				t.Errorf("%s If-None-Match %s: status %d etag %q, want 304 with the tag", target, inm, res.StatusCode, res.Header.Get("ETag"))
			}
		}
		// the gzip tag does not validate the decoded representation
		res := do(t, s, req{target: target, header: map[string]string{"If-None-Match": tag}})
		if res.StatusCode != 200 {
			t.Errorf("%s: the gzip ETag matched the identity body (%d)", target, res.StatusCode)
		}
		res = do(t, s, req{target: target, header: map[string]string{"Accept-Encoding": "gzip", "If-None-Match": `"other"`}})
		if res.StatusCode != 200 {
			t.Errorf("%s: a foreign tag gave %d", target, res.StatusCode)
		}
	}
}

func TestRange(t *testing.T) {
	s := fixture(t)
	target := "/r/" + rid + "/detail/" + shard + ".js"
	n := len(script)
	for _, c := range []struct {
		rng    string
		status int
		body   string
		cr     string
	}{
		{"bytes=0-4", 206, script[:5], "bytes 0-4/" + itoa(n)},
		{"bytes=3-", 206, script[3:], "bytes 3-" + itoa(n-1) + "/" + itoa(n)},
		{"bytes=-5", 206, script[n-5:], "bytes " + itoa(n-5) + "-" + itoa(n-1) + "/" + itoa(n)},
		{"bytes=-100000", 206, script, "bytes 0-" + itoa(n-1) + "/" + itoa(n)},
		{"bytes=2-100000", 206, script[2:], "bytes 2-" + itoa(n-1) + "/" + itoa(n)},
		{"bytes=" + itoa(n) + "-", 416, "", "bytes */" + itoa(n)},
		{"bytes=5-2", 416, "", "bytes */" + itoa(n)},
		{"bytes=-0", 416, "", "bytes */" + itoa(n)},
		{"bytes=-", 416, "", "bytes */" + itoa(n)},
		{"bytes=a-b", 416, "", "bytes */" + itoa(n)},
		{"bytes=+1-2", 416, "", "bytes */" + itoa(n)},
		{"bytes=1", 416, "", "bytes */" + itoa(n)},
		{"nonsense", 416, "", "bytes */" + itoa(n)},
		{"bytes=0-1,4-5", 200, script, ""},
		{"items=0-1", 200, script, ""},
	} {
		res := do(t, s, req{target: target, header: map[string]string{"Range": c.rng, "Accept-Encoding": "gzip"}})
		b := bodyOf(t, res)
		if res.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.rng, res.StatusCode, c.status)
			continue
		}
		if res.Header.Get("Content-Range") != c.cr {
			t.Errorf("%s: content range %q, want %q", c.rng, res.Header.Get("Content-Range"), c.cr)
		}
		if c.status == 416 {
			continue
		}
		if b != c.body || res.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: body %q encoding %q, want %q decoded", c.rng, b, res.Header.Get("Content-Encoding"), c.body)
		}
	}
	// If-Range with another version's tag: the whole body.
	res := do(t, s, req{target: target, header: map[string]string{"Range": "bytes=0-1", "If-Range": `"old"`}})
	if res.StatusCode != 200 || bodyOf(t, res) != script {
		t.Errorf("If-Range mismatch: status %d", res.StatusCode)
	}
	res = do(t, s, req{target: target, header: map[string]string{"Range": "bytes=0-1", "If-Range": `"` + shard + `"`}})
	if res.StatusCode != 206 {
		t.Errorf("If-Range match: status %d", res.StatusCode)
	}
}

func TestLinks(t *testing.T) {
	s := fixture(t)
	res := do(t, s, req{target: "/v/" + linkID})
	if res.StatusCode != 302 {
		t.Fatalf("status %d", res.StatusCode)
	}
	if loc := res.Header.Get("Location"); loc != "../r/"+rid+"/#view=%7B%22a%22%3A1%7D" {
		t.Errorf("Location %q", loc)
	}
	// a stored record that would break the header is never echoed
	res = do(t, s, req{target: "/v/ffffffffffff"})
	if res.StatusCode != 404 || res.Header.Get("Location") != "" || res.Header.Get("Set-Cookie") != "" {
		t.Errorf("bad record: status %d location %q", res.StatusCode, res.Header.Get("Location"))
	}
}

func TestMissingAndBrokenStorage(t *testing.T) {
	s := fixture(t)
	delete(s.objects, ShardKey(shard+".js"))
	res := do(t, s, req{target: "/r/" + rid + "/detail/" + shard + ".js"})
	if b := bodyOf(t, res); res.StatusCode != 404 || b != "not found\n" || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("missing shard: status %d body %q", res.StatusCode, b)
	}
	s.fail = true
	for _, target := range []string{"/r/" + rid + "/", "/r/" + rid + "/detail/" + shard + ".js", "/v/" + linkID} {
		res := do(t, s, req{target: target})
		b := bodyOf(t, res)
		if res.StatusCode != 503 || strings.Contains(b, "secret") || strings.Contains(b, "reports/") {
			t.Errorf("%s: broken storage gave %d %q", target, res.StatusCode, b)
		}
	}
	s.fail = false
	s.objects[ReportKey(rid, "index.html")] = []byte("not gzip")
	res = do(t, s, req{target: "/r/" + rid + "/"})
	if b := bodyOf(t, res); res.StatusCode != 503 || strings.Contains(b, "gzip") {
		t.Errorf("corrupt object: %d %q", res.StatusCode, b)
	}
}

func TestLinkCheck(t *testing.T) {
	good := Link{Report: rid, View: "#view=%7B%7D"}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, l := range []Link{
		{Report: "x", View: "#view="},
		{Report: rid, View: "view=1"},
		{Report: rid, View: "#view=<script>"},
		{Report: rid, View: "#view=" + strings.Repeat("a", MaxViewLen)},
		{Report: rid, View: "#view=a b"},
	} {
		if l.Check() == nil {
			t.Errorf("%+v passed the check", l)
		}
	}
}

func TestHeadOfErrorsHasNoBody(t *testing.T) {
	s := fixture(t)
	for _, target := range []string{"/nothing", "/r/" + rid + "/detail/" + shard + "a.js"} {
		res := do(t, s, req{method: "HEAD", target: target})
		if res.StatusCode != 404 || bodyOf(t, res) != "" || res.Header.Get("Content-Length") != "10" {
			t.Errorf("HEAD %s: %d, length %s", target, res.StatusCode, res.Header.Get("Content-Length"))
		}
	}
}

// putStore is a mapStore that can add objects.
type putStore struct{ *mapStore }

func (s putStore) Put(_ context.Context, key string, b []byte) error {
	if s.fail {
		return errBroken
	}
	s.objects[key] = append([]byte(nil), b...)
	return nil
}

func TestMintShortLinks(t *testing.T) {
	s := putStore{fixture(t)}
	view := "#view=%7B%22b%22%3A2%7D"
	target := "/v/?report=" + rid + "&view=" + url.QueryEscape(view)
	res := do(t, s, req{target: target})
	page := bodyOf(t, res)
	if res.StatusCode != 200 || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("mint: %d %s", res.StatusCode, page)
	}
	id, rec, _ := Link{Report: rid, View: view}.Record()
	if string(s.objects[LinkKey(id)]) != string(rec) {
		t.Fatalf("stored %q", s.objects[LinkKey(id)])
	}
	if !strings.Contains(page, `value="http://edge.test/v/`+id+`"`) {
		t.Fatalf("page does not show the short link:\n%s", page)
	}
	// the minted link redirects to the view
	res = do(t, s, req{target: "/v/" + id})
	if res.StatusCode != 302 || res.Header.Get("Location") != "../r/"+rid+"/"+view {
		t.Fatalf("minted link: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// minting again stores nothing new and gives the same id
	n := len(s.objects)
	if res := do(t, s, req{target: target}); res.StatusCode != 200 || len(s.objects) != n {
		t.Fatalf("second mint: %d, %d objects (was %d)", res.StatusCode, len(s.objects), n)
	}
	for _, c := range []struct {
		target string
		status int
	}{
		{"/v/?report=" + rid + "&view=" + url.QueryEscape("#view=<script>"), 400},
		{"/v/?report=" + rid + "&view=", 400},
		{"/v/?report=../secret&view=" + url.QueryEscape(view), 400},
		{"/v/?report=ffffffffffffffffffffffff&view=" + url.QueryEscape(view), 404},
	} {
		if res := do(t, s, req{target: c.target}); res.StatusCode != c.status {
			t.Errorf("%s: %d, want %d", c.target, res.StatusCode, c.status)
		}
	}
	if len(s.objects) != n {
		t.Errorf("a refused mint stored something")
	}
	if res := do(t, s, req{method: "HEAD", target: target}); res.StatusCode != 405 {
		t.Errorf("HEAD mint: %d", res.StatusCode)
	}
	// a read-only store, or minting off, does not mint
	if res := do(t, fixture(t), req{target: target}); res.StatusCode != 405 {
		t.Errorf("read-only mint: %d", res.StatusCode)
	}
	if res := doWith(t, &Handler{Store: s}, req{target: target}); res.StatusCode != 405 {
		t.Errorf("mint while off: %d", res.StatusCode)
	}
	// a host header never becomes markup
	r := httptest.NewRequest("GET", "http://edge.test"+target, nil)
	r.Host = `x"><script>alert(1)</script>`
	w := httptest.NewRecorder()
	(&Handler{Store: s, Mint: true}).ServeHTTP(w, r)
	if strings.Contains(w.Body.String(), "<script>") {
		t.Errorf("host reached the page as markup: %s", w.Body.String())
	}
}
