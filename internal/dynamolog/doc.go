// Package dynamolog reads the request identities Dynamo writes into its
// process logs, in both encodings Dynamo emits (readable text with key=value
// fields, and DYN_LOGGING_JSONL records, flat or with tracing-subscriber
// span/fields layers):
//
//   - frontend logs (<host>_frontend_<i>.out): the bridge from the client's
//     explicit request header (x_request_id) to the Dynamo request UUID
//     (dynamo.request.id, or the legacy request_id);
//   - worker logs (<host>_<role>_w<i>.out): worker bindings (request UUID,
//     recorded host, role and process epoch) and TensorRT-LLM "Engine ID map"
//     rows (request UUID → process-local client id → disaggregated id).
//
// Every record keeps its evidence (file and 1-based line) and its recorded
// timestamp text; an RFC 3339 timestamp with an offset is also converted to
// exact epoch nanoseconds. Nothing is joined here: the importer decides which
// client ids exist and whether a binding's host and role match the file
// name. Ambiguity is data: a client id bridged to several UUIDs, or a UUID
// bridged from several client ids, is kept and flagged, never resolved.
//
// Lines are split on '\n' only. A line that does not contain an identity
// key is skipped after one substring search, before any decoding, so a scan
// costs little more than reading the file. Malformed JSON on a candidate
// line is counted and skipped, as the reference does; only I/O problems and
// lines over MaxLineBytes are errors.
//
// Records come out as internal/model values; the package imports only the
// standard library, internal/model and the readers internal/lineread and
// internal/jsonscan.
package dynamolog
