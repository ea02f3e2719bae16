// Package query is the one place a question about a report is answered. The
// CLI (`dsight query`), the browser (through the wasm adapter) and tests all
// call the same Engine, so an answer can never differ between surfaces.
//
// Engine reads a decoded core shard in place (internal/catalog) plus the
// indexes the questions need, and shapes every answer: the JSON of
// requests, server evidence, lifecycles and metrics is defined here and
// nowhere else.
// Handle speaks a small JSON protocol ({"op": …, "args": {…}} in,
// {"ok": true, "result": …} or {"ok": false, "code": …, "error": …} out)
// so that one call crosses the JS↔Go boundary per question. The
// operations, their arguments and their handlers are declared once, in
// ops.go; every failure is an *Error with a Code (errors.go). Times in answers are seconds
// relative to meta.origin_ns; raw nanosecond values are strings so that no
// reader loses precision.
//
// It imports internal/model, catalog, shard, pyramid and lifecycle, and
// never an input reader (internal/archtest checks, for the wasm too).
package query
