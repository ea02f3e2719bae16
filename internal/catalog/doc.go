// Package catalog maps a model.Dataset to the tables of the report's core
// shard and back. The report writer encodes with it and every reader (CLI
// and wasm) decodes with it, so the mapping exists exactly once and a
// round-trip test pins it.
//
// It imports internal/model and internal/shard only.
package catalog
