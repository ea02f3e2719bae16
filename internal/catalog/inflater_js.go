//go:build js

package catalog

import (
	"compress/flate"
	"io"
)

// newInflater reads a deflate stream with the standard library's inflater
// in the page's engine: a second inflater would only grow the wasm.
func newInflater(r io.Reader) io.ReadCloser { return flate.NewReader(r) }
