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

// newGunzipper reads one gzip member with klauspost's inflater, in every
// build (the page's engine included; see catalog's newInflater).
func newGunzipper(r io.Reader) (gunzipper, error) { return gzip.NewReader(r) }
