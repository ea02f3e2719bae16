//go:build !js

package shard

import (
	"io"

	"github.com/klauspost/compress/gzip"
)

// gzipWriter is the writer Compress uses. Shards are written natively only
// (the build, the publisher), with klauspost's deflater: its bytes are the
// ones content-hash names are made of.
type gzipWriter = gzip.Writer

func newGzipWriter(w io.Writer, level int) (*gzipWriter, error) {
	return gzip.NewWriterLevel(w, level)
}
