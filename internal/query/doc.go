// Package query is the one place a question about a report is answered. The
// CLI (`dsight query`), the browser (through the wasm adapter) and tests all
// call the same Engine, so an answer can never differ between surfaces.
//
// Engine holds a decoded model.Dataset plus the indexes the questions need.
// Handle speaks a small JSON protocol ({"op": …, "args": {…}} in,
// {"ok": true, "result": …} or {"ok": false, "code": …, "error": …} out)
// so that one call crosses the JS↔Go boundary per question. The
// operations, their arguments and their handlers are declared once, in
// ops.go; every failure is an *Error with a Code (errors.go). Times in answers are seconds
// relative to meta.origin_ns; raw nanosecond values are strings so that no
// reader loses precision.
//
// It imports internal/model only.
package query
