//go:build js

package shard

import (
	"errors"
	"io"
)

// The page's engine reads reports and never writes one, so its wasm links
// no deflater at all: a second gzip implementation beside the standard
// library's inflater would only grow it (internal/archtest keeps
// klauspost/compress out of the wasm). Compress and CompressTo fail there
// rather than write bytes whose content-hash names differ from the build's.
type gzipWriter struct{}

var errNoWriter = errors.New("compress shard: the page's engine writes no shards")

func newGzipWriter(io.Writer, int) (*gzipWriter, error) { return nil, errNoWriter }

func (*gzipWriter) Write([]byte) (int, error) { return 0, errNoWriter }
func (*gzipWriter) Close() error              { return errNoWriter }
func (*gzipWriter) Reset(io.Writer)           {}
