// Package aiperf parses one AIPerf / AgentX client export
// (profile_export.jsonl) into normalized requests.
//
// Two schemas exist. The current one records metadata.request_start_ns and
// request_end_ns (epoch ns) and benchmark_phase. The legacy one (AIPerf
// releases of October 2025) records only metadata.timestamp_ns and
// credit_phase, with the end in metrics.max_response_timestamp. The
// reference importer rejects legacy rows; this package reads them and labels
// every value it had to derive:
//
//   - start is timestamp_ns; a differing min_request_timestamp is kept as an
//     issue, never substituted.
//   - end is max_response_timestamp; without it, start + request_latency with
//     the issue "end derived from start + request_latency".
//   - A row with neither (AIPerf writes cancelled requests that way, with only
//     error_request_count) is kept with end = start and the issue "no recorded
//     end; zero-length at timestamp_ns", and the count is reported as a
//     warning. Dropping such rows would hide cancellations from the error
//     counts; a zero-length bar at the recorded start claims no duration.
//
// Status: "cancelled" when metadata.was_cancelled is true or the error record
// is a RequestCancellationError (AIPerf writes both for a cancellation), else
// "error" when an error record is present, else "completed". The reference
// lets any error record win, which reports every client cancellation as a
// server error; the error text is kept either way.
//
// Times stay absolute epoch ns here; the importer rebases them. Numbers are
// read as literals and converted in decimal (TTFT ms to ns rounds halves
// away from zero), so 19-digit timestamps never pass through float64.
// Prompt and response text are never read into memory beyond the line
// buffer, and never kept.
//
// It imports the model package, jsonscan and lineread.
package aiperf
