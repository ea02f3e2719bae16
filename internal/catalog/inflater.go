//go:build !js

package catalog

import (
	"io"

	kflate "github.com/klauspost/compress/flate"
)

// newInflater reads a deflate stream. Native readers (the CLI, the
// Perfetto export, MCP) inflate every chunk of a large report, where
// klauspost's inflater is the faster one; the engine in the page keeps the
// standard library's (inflater_js.go), which the wasm links anyway.
func newInflater(r io.Reader) io.ReadCloser { return kflate.NewReader(r) }
