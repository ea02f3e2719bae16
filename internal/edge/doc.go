// Package edge owns the published bucket layout and the HTTP handler that
// serves it: many reports under /r/<report-id>/…, content-addressed shard
// scripts shared between reports, and short links /v/<id> that redirect to a
// report with its #view= fragment.
//
// The handler is plain net/http over a Store (one read-only key → bytes
// lookup), so the routing, caching, range and encoding rules are tested
// natively; cmd/edge only binds a Store to the platform (an R2 bucket on
// Cloudflare, a disk directory behind a service binding on a local workerd).
//
// Every object is stored gzip-compressed. Paths are matched segment by
// segment against fixed patterns of hex ids, so nothing a client writes
// becomes part of a storage key: traversal, encoded dots, backslashes and
// oversized ids are simply not routes (404).
//
// It imports only the standard library, because it is compiled into the
// worker's wasm, whose size the platform limits.
package edge
