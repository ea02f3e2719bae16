// Package shard owns the report's shard codec: a compact columnar binary
// format (Encode, Decode), its deterministic gzip wrapping (Compress,
// Decompress) and the classic-script envelope that lets a page opened from
// file:// load a shard with a <script src> tag (Envelope, OpenEnvelope, ID).
//
// The same decoder runs in the native CLI and in the browser's Go wasm
// engine, so the package must build for GOOS=js GOARCH=wasm. It imports only
// the standard library, plus github.com/klauspost/compress/gzip for the
// writer side, and no other dsight package. The byte layout is documented in
// docs/format/shard.md; any change to it bumps FormatVersion.
//
// Decoding treats its input as hostile: every length read from the bytes is
// checked against the bytes that remain and against the named limits in
// format.go before anything is allocated, and a truncated or corrupted shard
// gives an error, never a panic.
package shard
