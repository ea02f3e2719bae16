// Package model owns the normalized evidence of one benchmark run: the types
// every source parser produces and every reader (query engine, report writer,
// shard mapping) consumes — client requests and sessions, metric series, and
// server evidence (spans with their resources, scopes and typed attributes;
// frontend bridge lines; worker process bindings; engine id maps; and the
// per-request evidence the build joins from them).
//
// It is a leaf: plain types and pure helpers, no I/O, no JSON shapes, no
// imports from the rest of dsight. Client and metric times are int64
// nanoseconds relative to Meta.OriginNS so that they stay exact; server
// evidence keeps the recorded absolute epoch nanoseconds. Conversion to
// seconds happens only at the presentation edge (internal/query). Unknown
// values are nil pointers (null), never zero.
package model
