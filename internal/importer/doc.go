// Package importer turns a run directory into a model.Dataset: it walks the
// run once, lets each source kind of its registry (sourceKinds, in
// registry.go) claim its files from that inventory, opens every file once
// and hands it to its format parser, registers every file it read as
// evidence (path, size, SHA-256), aligns times to the run origin, counts
// what it kept and dropped, and reports the files no kind claimed.
//
// Parsers never see each other; joins and the time window live here (the
// join of server evidence to client requests in internal/importer/join).
// It imports internal/model, the per-format parser packages, the join and
// internal/lifecycle (to say whether a joined request has a lifecycle).
package importer
