// Package tachometer reads Tachometer metric captures (Parquet and Arrow IPC
// files of scraped Prometheus samples) into series, points and a family
// catalog, and classifies metric families for presentation.
//
// It owns capture discovery (final.parquet supersedes compacted shards, Arrow
// tails are always read, the upload mirror is skipped: Discover walks a
// root, Assemble applies the same rules to files a caller already found),
// encoding detection
// from file contents, the inline label grammar of metric_name, series
// identity, duplicate and conflict detection, and the dashboard taxonomy
// (Describe). Reading streams batches of rows into a caller-supplied Sink, so
// memory does not grow with the number of samples; the next batch is decoded
// on a second goroutine while the current one is read. Parquet is decoded
// with the low-level column readers into reused buffers (parquet.go), so a
// read allocates little per row; Arrow IPC record batches are copied into the
// same batches. Every distinct row identity of a file gets a dense id while
// decoding (identity.go), so the reader resolves each identity once.
//
// A capture's files are opened through Capture.Open (os.Open by default),
// so a caller that holds them open already (the importer, which opens each
// source file once) serves both passes, Inspect and Read, from its handle.
//
// It also parses the scraper's tachometer_config.toml (config.go), whose
// endpoint host and GPU metadata identify rows that lack those columns.
//
// Timestamps stay absolute UTC epoch nanoseconds; relating them to a run
// origin is the caller's job. A capture file without timestamp_ns (older
// writers kept only time_since_start, relative to a start they did not
// record) cannot be aligned: Inspect leaves it out of Files with a warning
// saying so, and the rest of the capture is read.
//
// It is the only dsight package that imports Apache Arrow (and the TOML
// reader), which keeps Arrow and Parquet out of the wasm engine; it imports
// nothing else from dsight and is never compiled for GOOS=js. Of Parquet it
// uses the file and schema packages alone, reading and writing (parquet.go,
// parquetschema.go, write_parquet.go): the Arrow Parquet package (pqarrow)
// would link Arrow's compute kernels, Flight and gRPC into the CLI.
package tachometer
