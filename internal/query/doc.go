// Package query is the one place a question about a report is answered. The
// CLI (`dsight query`), the browser (through the wasm adapter) and tests all
// call the same Engine, so an answer can never differ between surfaces.
//
// Engine holds a report's decoded core (catalog.Core) plus the indexes the
// questions need.
// Handle speaks a small JSON protocol ({"op": …, "args": {…}} in,
// {"ok": true, "result": …} or {"ok": false, "error": …} out) so that one
// call crosses the JS↔Go boundary per question. Times in answers are seconds
// relative to meta.origin_ns; raw nanosecond values are strings so that no
// reader loses precision.
//
// It imports internal/model, internal/catalog (the core's tables),
// internal/shard and internal/pyramid (detail shards and metric summaries)
// and internal/lifecycle (the server evidence a request's detail derives
// from).
package query
