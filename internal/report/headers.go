package report

import "strings"

// HeadersFile is the static host's header rules (Cloudflare Pages and
// Netlify read _headers from the site's root).
const HeadersFile = "_headers"

// Headers renders _headers: every shard script is named by the hash of its
// payload and cached for a year as immutable; index.html (and the manifest,
// which tools read) keep their names across rebuilds and are revalidated,
// and index.html is sent with csp, the policy its meta element declares
// (ContentSecurityPolicy of its inline script). The patterns are relative
// to the report's root, which is the site's root when the report is
// deployed on its own.
func Headers(csp string) []byte {
	var b strings.Builder
	b.WriteString("# Written by dsight: header rules for a static host (Cloudflare Pages, Netlify).\n")
	rule := func(path string, kv ...string) {
		b.WriteString(path + "\n")
		for i := 0; i < len(kv); i += 2 {
			b.WriteString("  " + kv[i] + ": " + kv[i+1] + "\n")
		}
	}
	rule("/*", "X-Content-Type-Options", "nosniff", "Referrer-Policy", "no-referrer")
	rule("/", "Cache-Control", "no-cache", "Content-Type", "text/html; charset=utf-8", "Content-Security-Policy", csp)
	rule("/index.html", "Cache-Control", "no-cache", "Content-Type", "text/html; charset=utf-8", "Content-Security-Policy", csp)
	rule("/manifest.json", "Cache-Control", "no-cache", "Content-Type", "application/json")
	rule("/"+DetailDir+"/*", "Cache-Control", "public, max-age=31536000, immutable", "Content-Type", "text/javascript; charset=utf-8")
	return []byte(b.String())
}
