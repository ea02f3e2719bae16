//go:build js

package shard

import (
	"compress/gzip"
	"io"
)

// gunzipper is what decompress needs of a gzip reader.
type gunzipper interface {
	io.ReadCloser
	Multistream(bool)
}

// newGunzipper reads one gzip member with the standard library in the
// page's engine: a second inflater would only grow the wasm.
func newGunzipper(r io.Reader) (gunzipper, error) { return gzip.NewReader(r) }
