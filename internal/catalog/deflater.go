//go:build !js

package catalog

import (
	"io"

	kflate "github.com/klauspost/compress/flate"
)

// deflater writes evidence chunks. Reports are written natively only, with
// klauspost's deflater at its default level: a chunk's bytes, and with them
// the report's content-hash names, are this writer's.
type deflater = kflate.Writer

func newDeflater(w io.Writer) *deflater {
	fw, _ := kflate.NewWriter(w, kflate.DefaultCompression) // fails only for a bad level
	return fw
}
