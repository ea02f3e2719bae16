package edge

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// ErrNotFound is what a Store returns for a key it does not hold.
var ErrNotFound = errors.New("edge: object not found")

// Store reads objects of the bucket layout. Get returns the stored
// (gzip-compressed) bytes; Has answers without reading the body.
type Store interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Has(ctx context.Context, key string) (bool, error)
}

// Handler serves the bucket layout over HTTP.
type Handler struct {
	Store Store
	// Mint lets /v/?report=…&view=… add short links (Store must be a
	// Putter); off, links come only from dsight link.
	Mint bool
}

// Cache policies. A report's files and shards never change under their
// name; index.html is still revalidated so that a host serving the same
// name for a rebuilt report (a plain static site) never shows a stale page.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheRevalid   = "no-cache"
	cacheLink      = "public, max-age=3600"
)

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		plain(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	if r.Method == http.MethodHead {
		w = headWriter{w}
	}
	// Route on the path as sent: an encoded dot or slash stays encoded and
	// matches no pattern.
	seg := strings.Split(r.URL.EscapedPath(), "/")
	if len(seg) < 3 || seg[0] != "" {
		notFound(w)
		return
	}
	switch {
	case seg[1] == "r" && ValidReportID(seg[2]):
		h.report(w, r, seg[2], seg[3:])
	case seg[1] == "v" && len(seg) == 3 && ValidLinkID(seg[2]):
		h.link(w, r, seg[2])
	case seg[1] == "v" && len(seg) == 3 && seg[2] == "":
		h.mint(w, r)
	default:
		notFound(w)
	}
}

// report serves /r/<id>, /r/<id>/, /r/<id>/index.html,
// /r/<id>/manifest.json and /r/<id>/detail/<sha256>.js.
func (h *Handler) report(w http.ResponseWriter, r *http.Request, id string, rest []string) {
	switch {
	case len(rest) == 0:
		// Relative, so a worker mounted under any path prefix keeps it.
		w.Header().Set("Location", id+"/")
		plain(w, http.StatusMovedPermanently, "moved")
	case len(rest) == 1 && (rest[0] == "" || rest[0] == "index.html"):
		h.object(w, r, ReportKey(id, "index.html"), id+"-index", "text/html; charset=utf-8", cacheRevalid)
	case len(rest) == 1 && rest[0] == "manifest.json":
		h.object(w, r, ReportKey(id, "manifest.json"), id+"-manifest", "application/json", cacheImmutable)
	case len(rest) == 2 && rest[0] == "detail" && validShardName(rest[1]):
		// A shard is served only under a report that exists, so the
		// bucket cannot be browsed through a made-up report id.
		ok, err := h.Store.Has(r.Context(), ReportKey(id, "index.html"))
		if err != nil {
			unavailable(w)
			return
		}
		if !ok {
			notFound(w)
			return
		}
		h.object(w, r, ShardKey(rest[1]), strings.TrimSuffix(rest[1], ".js"), "text/javascript; charset=utf-8", cacheImmutable)
	default:
		notFound(w)
	}
}

// link redirects a short link to its report, with the view fragment.
func (h *Handler) link(w http.ResponseWriter, r *http.Request, id string) {
	b, err := h.Store.Get(r.Context(), LinkKey(id))
	if errors.Is(err, ErrNotFound) {
		notFound(w)
		return
	}
	if err != nil {
		unavailable(w)
		return
	}
	l, err := ParseLink(b)
	if err != nil {
		// A record that fails its check is never echoed into a header.
		notFound(w)
		return
	}
	w.Header().Set("Location", "../r/"+l.Report+"/"+l.View)
	w.Header().Set("Cache-Control", cacheLink)
	plain(w, http.StatusFound, "found")
}

func (h *Handler) object(w http.ResponseWriter, r *http.Request, key, etag, ctype, cache string) {
	gz, err := h.Store.Get(r.Context(), key)
	if errors.Is(err, ErrNotFound) {
		notFound(w)
		return
	}
	if err != nil {
		unavailable(w)
		return
	}
	serveStored(w, r, gz, etag, ctype, cache)
}

// plain writes a fixed short text body. Error bodies never carry a key,
// a path or a storage error.
func plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", itoa(len(msg)+1))
	w.WriteHeader(status)
	w.Write([]byte(msg + "\n"))
}

// headWriter answers HEAD with every header of GET and no body.
type headWriter struct{ http.ResponseWriter }

func (headWriter) Write(b []byte) (int, error) { return len(b), nil }

func notFound(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	plain(w, http.StatusNotFound, "not found")
}

func unavailable(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	plain(w, http.StatusServiceUnavailable, "storage unavailable")
}
