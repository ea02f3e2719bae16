// Package otlp reads Dynamo's OpenTelemetry traces: OTLP/JSON files as an
// OpenTelemetry Collector "file" exporter writes them (otel/traces.jsonl or
// otel/<collector>/traces.jsonl, one ExportTraceServiceRequest document per
// line), and pretty-printed single documents such as the OTLP example trace.
//
// It owns span decoding (ids, names, kinds, exact int64 epoch-nanosecond
// times, status, typed attributes in their AnyValue shapes, resource and
// scope), per-file reports, de-duplication of identical copies across
// collector files and the invalid-span rule (end before start). It performs
// no joins, windowing or clock
// correction: every span keeps its recorded values and its evidence
// (file, line, ordinal within the record).
//
// Malformed input is an error naming path:LINE. Inverted spans and identical
// duplicates are data, counted and kept aside; a conflicting duplicate is an
// error.
//
// Decoding uses a schema-directed JSON scanner instead of encoding/json: a
// collector export can hold millions of spans, and a generic tree would
// cost several times the file size. Records are bounded by
// Options.MaxRecordBytes and nesting by a fixed depth.
//
// Spans come out as internal/model values; the package imports only the
// standard library, internal/model, internal/jsonscan and internal/lineread.
package otlp
