package edge

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Any request line, Range, Accept-Encoding and If-None-Match: the handler
// answers one of its statuses, never panics, never leaks an object it was
// not asked for, and a 206 body is what Content-Range says. Each input has
// a time limit, so a hang fails.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{"/r/" + rid + "/", "/r/" + rid + "/detail/" + shard + ".js", "/v/" + linkID, "/r/%2e%2e/secret", `/r/x\..\secret`} {
		f.Add("GET", s, "bytes=0-3", "gzip", "")
		f.Add("HEAD", s, "bytes=-2", "", `"x"`)
	}
	allowed := map[int]bool{200: true, 206: true, 301: true, 302: true, 304: true, 404: true, 405: true, 416: true}
	f.Fuzz(func(t *testing.T, method, target, rng, ae, inm string) {
		u, err := url.ParseRequestURI(target)
		if err != nil || !strings.HasPrefix(target, "/") || !validMethod(method) {
			return
		}
		r := &http.Request{Method: method, URL: u, Header: http.Header{}, RequestURI: target}
		r = r.WithContext(t.Context())
		r.Header.Set("Range", rng)
		r.Header.Set("Accept-Encoding", ae)
		r.Header.Set("If-None-Match", inm)
		w := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			(&Handler{Store: fixture(t)}).ServeHTTP(w, r)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("%s %q did not answer within 2 s", method, target)
		}
		res := w.Result()
		if !allowed[res.StatusCode] {
			t.Fatalf("%s %q: status %d", method, target, res.StatusCode)
		}
		body := w.Body.String()
		if strings.Contains(body, "secret") {
			t.Fatalf("%s %q leaked %q", method, target, body)
		}
		if res.StatusCode == 206 && !strings.HasPrefix(res.Header.Get("Content-Range"), "bytes ") {
			t.Fatalf("206 without a Content-Range")
		}
		if method == http.MethodHead && body != "" {
			t.Fatalf("HEAD with a body")
		}
	})
}

func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}
