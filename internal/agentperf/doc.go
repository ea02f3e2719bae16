// Package agentperf adapts native AgentPerf output to normalized requests:
// the HTTP/liveness request log (requests.jsonl), the phase manifest
// (phase_manifest.jsonl) and the phase-end analysis records
// (*__phase<N>__traj*.jsonl) beside it.
//
// Records are joined on recorded identities only, never on timestamp
// proximity: an analysis record matches the request-log row with the same
// (phase, request_id, user_id, conversation_id, conversation_idx). Timing,
// outcome and tokens come from the analysis record when one matches
// ("phase analysis"), else from the request log ("request log (liveness)");
// the HTTP identity always comes from the request log, and each value keeps a
// reference to the row it came from. A manifest window classifies a request
// as "profiling" when settling_end <= start < actual_phase_end and as
// "settling" otherwise; without a manifest the phase stays unknown.
//
// AgentPerf writes epoch seconds as decimal literals. They are converted to
// ns in decimal, dropping digits below 1 ns as the reference importer does
// (int(Decimal)); TTFT seconds follow the same rule, and TTFT ms is the
// float64 nearest to the exact seconds × 1000. Identity values compare by
// JSON type and exact value (4 and 4.0 are the same user). A null or missing
// user or conversation is shown as "unknown" in the session name.
//
// Prompt, response text and stream chunks are skipped while scanning and
// never kept. Times stay absolute epoch ns here; the importer rebases them.
//
// It imports the model package, jsonscan and lineread.
package agentperf
