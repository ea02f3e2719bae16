// Package web holds the report page: its sources under src/ (template,
// scripts, styles) and, under dist/, what `make assets` builds from them (the
// esbuild bundle, the engine's wasm and wasm_exec.js). Assets exposes dist to
// the report writer.
package web

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Assets returns the built page assets. A binary built before `make assets`
// has an empty set; the report writer then names the missing file.
func Assets() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic("invariant violation: embedded dist directory missing: " + err.Error())
	}
	return sub
}
