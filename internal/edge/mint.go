package edge

import (
	"bytes"
	"context"
	"errors"
	"html"
	"net/http"
)

// Putter is a Store that can also add objects. A store without it serves
// published links only.
type Putter interface {
	Put(ctx context.Context, key string, b []byte) error
}

// mint is GET /v/?report=<id>&view=<#view=…>: the page's "Copy short link"
// navigates here, because its Content-Security-Policy allows no fetch and
// no form. It stores the link's record (content-addressed, so a repeat or
// a link preview stores nothing new) and answers a page showing the short
// link. Only reports that exist get links, and only well-formed fragments.
func (h *Handler) mint(w http.ResponseWriter, r *http.Request) {
	p, ok := h.Store.(Putter)
	if !ok || !h.Mint || r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		plain(w, http.StatusMethodNotAllowed, "short links are minted with dsight link here")
		return
	}
	q := r.URL.Query()
	l := Link{Report: q.Get("report"), View: q.Get("view")}
	id, rec, err := l.Record()
	if err != nil {
		plain(w, http.StatusBadRequest, "not a report id and #view= fragment")
		return
	}
	exists, err := h.Store.Has(r.Context(), ReportKey(l.Report, "index.html"))
	if err != nil {
		unavailable(w)
		return
	}
	if !exists {
		notFound(w)
		return
	}
	old, err := h.Store.Get(r.Context(), LinkKey(id))
	switch {
	case errors.Is(err, ErrNotFound):
		if err := p.Put(r.Context(), LinkKey(id), rec); err != nil {
			unavailable(w)
			return
		}
	case err != nil:
		unavailable(w)
		return
	case !bytes.Equal(old, rec):
		plain(w, http.StatusConflict, "this short link id already names another view")
		return
	}
	scheme := r.URL.Scheme
	if scheme == "" {
		scheme = "http"
		if r.TLS != nil {
			scheme = "https"
		}
	}
	short := scheme + "://" + r.Host + r.URL.EscapedPath() + id
	page := `<!doctype html><html lang="en"><meta charset="utf-8"><title>Short link · dsight</title>` +
		`<style>body{font:15px system-ui,sans-serif;margin:2rem}input{width:min(40rem,90vw);font:inherit;padding:.3rem}</style>` +
		`<h1>Short link</h1><p><label>Copy it: <input id="shortLink" readonly value="` + html.EscapeString(short) + `"></label></p>` +
		`<p><a id="openShortLink" href="` + html.EscapeString(id) + `">Back to the view</a></p></html>`
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	body(w, http.StatusOK, []byte(page))
}
