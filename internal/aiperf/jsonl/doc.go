// Package jsonl reads JSON Lines evidence files for the client-export
// parsers: physical lines with a named upper bound, a validating scanner that
// visits one record's members without building a tree, and exact conversions
// of number literals.
//
// Parsers keep only the fields they need: the scanner hands out object keys
// and lets everything else be skipped in place, so a record carrying a large
// array (AIPerf's inter_chunk_latency) or a response body costs one validating
// pass and no allocation. Number literals stay text until a caller converts
// them with Scaled, which works in decimal and never rounds through float64.
//
// The benchmark clients are Python programs whose json module writes NaN,
// Infinity and -Infinity for non-finite floats, so the scanner accepts those
// three literals as numbers; everything else follows RFC 8259.
//
// It imports only the standard library.
package jsonl
