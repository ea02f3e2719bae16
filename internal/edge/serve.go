package edge

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// serveStored answers with one stored gzip object: passed through as is
// when the client accepts gzip, decoded when it does not or when it asks
// for a byte range (ranges address the decoded bytes, so a range never
// depends on how the object happens to be compressed). Each representation
// has its own strong ETag.
func serveStored(w http.ResponseWriter, r *http.Request, gz []byte, etag, ctype, cache string) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", cache)
	h.Set("Vary", "Accept-Encoding")
	h.Set("Accept-Ranges", "bytes")
	rng := r.Header.Get("Range")
	if rng != "" && r.Method == http.MethodGet {
		if ir := r.Header.Get("If-Range"); ir != "" && ir != quote(etag) {
			rng = "" // the client's copy is another version: send it whole
		}
	}
	gzipped := rng == "" && acceptsGzip(r.Header.Get("Accept-Encoding"))
	tag := quote(etag)
	if gzipped {
		tag = quote(etag + "-gzip")
	}
	h.Set("ETag", tag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, tag) {
		h.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if gzipped {
		h.Set("Content-Encoding", "gzip")
		body(w, http.StatusOK, gz)
		return
	}
	raw, err := gunzip(gz)
	if err != nil {
		unavailable(w)
		return
	}
	if rng == "" {
		body(w, http.StatusOK, raw)
		return
	}
	start, end, ok := parseRange(rng, len(raw))
	switch {
	case !ok:
		h.Set("Content-Range", "bytes */"+itoa(len(raw)))
		h.Del("ETag")
		plain(w, http.StatusRequestedRangeNotSatisfiable, "range not satisfiable")
	case start < 0: // a form this handler does not split (several ranges)
		body(w, http.StatusOK, raw)
	default:
		h.Set("Content-Range", "bytes "+itoa(start)+"-"+itoa(end-1)+"/"+itoa(len(raw)))
		body(w, http.StatusPartialContent, raw[start:end])
	}
}

func body(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Length", itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// parseRange reads a single "bytes=" range against a body of n bytes and
// returns [start, end). ok is false for a malformed or unsatisfiable range
// (416); start < 0 with ok means a multi-range request, answered whole.
// A unit other than bytes is not a range this server knows: whole body.
func parseRange(s string, n int) (start, end int, ok bool) {
	spec, found := strings.CutPrefix(s, "bytes=")
	if !found {
		if strings.Contains(s, "=") && !strings.HasPrefix(strings.ToLower(s), "bytes") {
			return -1, 0, true
		}
		return 0, 0, false
	}
	if strings.Contains(spec, ",") {
		return -1, 0, true
	}
	first, last, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return 0, 0, false
	}
	if first == "" { // suffix: the last N bytes
		k, err := strconv.Atoi(last)
		if err != nil || k <= 0 || n == 0 || !digits(last) {
			return 0, 0, false
		}
		return max(n-k, 0), n, true
	}
	a, err := strconv.Atoi(first)
	if err != nil || !digits(first) || a >= n {
		return 0, 0, false
	}
	if last == "" {
		return a, n, true
	}
	b, err := strconv.Atoi(last)
	if err != nil || !digits(last) || b < a {
		return 0, 0, false
	}
	return a, min(b+1, n), true
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// acceptsGzip reads Accept-Encoding: gzip (or *) with a non-zero quality.
func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "x-gzip" && name != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		if v, ok := strings.CutPrefix(q, "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// etagMatch is If-None-Match's weak comparison against one strong tag.
func etagMatch(header, tag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == tag {
			return true
		}
	}
	return false
}

func quote(s string) string { return `"` + s + `"` }

func itoa(n int) string { return strconv.Itoa(n) }

// maxDecoded bounds what one object may inflate to (shard parts are 1 MiB
// of base64 payload; index.html is a few hundred KB).
const maxDecoded = 64 << 20

func gunzip(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxDecoded+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxDecoded {
		return nil, io.ErrShortBuffer
	}
	return b, nil
}
