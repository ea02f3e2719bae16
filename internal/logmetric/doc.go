// Package logmetric owns the contract between engine worker-log adapters and
// the rest of dsight: immutable metric definitions, the Generator interface,
// and the shared reader that turns one worker log into metric series with
// line evidence.
//
// An adapter (internal/sglang, internal/tokenspeed, …) only knows its engine's
// log syntax: it decodes one line into an Observation carrying the naive or
// zoned timestamp as written, the recorded rank/process/label scope and values
// by definition name. Everything else lives here, once, for every adapter:
//
//   - timezone alignment (naive local timestamps need an explicit location;
//     without one they are omitted and a warning is recorded),
//   - series identity (file, worker, host, generator, rank, process, labels),
//   - evidence (source id and 1-based physical line for every point),
//   - validation (name collisions, references to missing definitions or to a
//     different unit, non-finite values, undeclared names),
//   - window selection with held settings (Clip), merging per-file results
//     (Merge) and the capacity summaries the query engine and UI show.
//
// Points keep absolute epoch nanoseconds; the importer rebases them onto the
// run origin when it maps series into the normalized model.
//
// Imports: the standard library and the lineread reader only. It must not
// import internal/model or any adapter; adapters import this package.
package logmetric
