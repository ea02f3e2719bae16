//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// Outside a Workers runtime there is nothing to serve: syumai/workers would
// fall back to a plain server on every interface, which is not this tool.
func main() {
	fmt.Fprintln(os.Stderr, "cmd/edge runs on Cloudflare Workers or workerd: build it with `make edge`")
	os.Exit(2)
}
