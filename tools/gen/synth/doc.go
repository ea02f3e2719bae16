// Package synth generates deterministic synthetic benchmark runs: a run
// directory laid out like a real capture, whose files dsight imports and
// whose size and shape the benchmarks and demos rely on.
//
// Generation has two steps. NewPlan simulates the workload (sessions, agents,
// requests and their timings) from a seeded PCG stream; each source writer
// (one file per source, e.g. aiperf.go) then renders the plan in that
// source's on-disk format, streaming through a bufio.Writer. The same Config
// always yields byte-identical files: no wall clock, no map iteration, and
// per-request detail (such as chunk timings) comes from a stream derived
// from the seed and the request's index, not from write order.
//
// The package imports only the standard library; it must not import the
// dsight importer, so that generated data stays an independent witness of
// the formats.
package synth
