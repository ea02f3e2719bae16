// Package nsys reads Nsight Systems SQLite exports (`nsys export --type
// sqlite`) into model.Profile values: the session anchor and capture window,
// the NVTX ranges of the selected categories with their names and threads,
// the host, diagnostics, whether a CUDA kernel table exists, and a
// frontend's CPU samples with their call chains.
//
// It uses the pure-Go modernc.org/sqlite driver, and reads NVTX_EVENTS, the
// one table with millions of rows, straight from the file's b-tree pages
// (sqlitefile.go) whenever the result is the driver's. It is an input reader:
// neither the query engine nor the wasm may import it. Exports differ
// between Nsight versions, so the reader looks up every table and column it
// uses and names what is missing instead of assuming one version's schema.
package nsys
