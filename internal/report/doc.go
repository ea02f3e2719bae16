// Package report writes a report directory and opens one again.
//
// A report is a static directory that works from file://, any static HTTP
// host or a CDN with no server: index.html (page, styles and scripts inline,
// plus a small boot record naming the shards), detail/<sha256>.js (gzip
// payloads in classic-script envelopes, named by content so hosts may cache
// them forever: the engine's wasm and the core shard), and manifest.json
// (schema, counts, warnings, the source inventory with hashes, and the hash of
// every output file).
//
// Write stages the whole output beside the target and swaps it in at the end,
// so a failed or killed build leaves the previous report untouched; it refuses
// to replace a directory that is not a report. Begin opens that stage before
// the dataset exists (a build holds its lock from the start), and
// Stage.Write then finishes the report as Write would. Identical inputs give
// byte-identical output: nothing depends on the clock, the host or map order.
//
// It imports internal/model, internal/catalog, internal/query (for the summary
// recorded in the manifest) and internal/shard. Page assets arrive as an fs.FS
// so that tests can pass their own.
package report
