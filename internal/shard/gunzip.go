//go:build !js

package shard

import (
	"io"

	"github.com/klauspost/compress/gzip"
)

// gunzipper is what decompress needs of a gzip reader.
type gunzipper interface {
	io.ReadCloser
	Multistream(bool)
}

// newGunzipper reads one gzip member. Native readers (the CLI, the
// Perfetto export, MCP) inflate whole reports, where klauspost's inflater
// is the faster one; the engine in the page keeps the standard library's
// (gunzip_js.go), which the wasm links anyway.
func newGunzipper(r io.Reader) (gunzipper, error) { return gzip.NewReader(r) }
