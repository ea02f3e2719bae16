// Package importer turns a run directory into a model.Dataset: it discovers
// source files, hands each to its format parser, registers every file it
// read as evidence (path, size, SHA-256), aligns times to the run origin,
// counts what it kept and dropped, and reports files it did not read.
//
// Parsers never see each other; joins and the time window live here.
// It imports internal/model and the per-format parser packages.
package importer
