//go:build js

package catalog

import "io"

// The page's engine reads reports and never writes one, so its wasm links
// no deflater (internal/archtest keeps klauspost/compress out of it): the
// chunk writers exist there only so the package builds, and a call is a
// bug rather than chunks whose bytes differ from the build's.
type deflater struct{}

const noDeflater = "catalog: the page's engine writes no evidence chunks"

func newDeflater(io.Writer) *deflater { panic(noDeflater) }

func (*deflater) Write([]byte) (int, error) { panic(noDeflater) }
func (*deflater) Close() error              { panic(noDeflater) }
func (*deflater) Reset(io.Writer)           { panic(noDeflater) }
