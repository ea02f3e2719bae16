// Package model owns the normalized evidence of one benchmark run: the types
// every source parser produces and every reader (query engine, report writer,
// shard mapping) consumes.
//
// It is a leaf: plain types and pure helpers, no I/O, no imports from the rest
// of dsight. Times are int64 nanoseconds relative to Meta.OriginNS so that they
// stay exact; conversion to seconds happens only at the presentation edge.
// Unknown values are nil pointers (null), never zero.
package model
