// Package sglang decodes SGLang scheduler log lines into log metric
// observations (log_sglang_*): the periodic "Prefill batch" / "Decode batch"
// snapshots and the per-request ReqTimeStats(...) records.
//
// Supported line shapes (shared/spec/input-formats.md §6):
//
//   - prefix "[YYYY-MM-DD HH:MM:SS(.fff…)( DPn)( PPn)( ATTN_CPn)( MOE_DPn)( TPn)( EPn)] ",
//     found anywhere on the line (ANSI colour codes or progress output may
//     precede it); a repeated rank name rejects the prefix;
//   - "Prefill batch" / "Decode batch", with or without " [counter]", followed
//     by "," (current) or "." (≤ early 2025), then "key: value" fields joined
//     by ", " (a trailing ", " or "," is tolerated);
//   - ReqTimeStats(meta): fields, in the key=value forms and in the newest
//     "bootstrap_queue_duration(Xms) = bootstrap(Yms) + alloc_wait(Zms); …" /
//     "prealloc_queue_duration(Xms) …; transfer_duration=…; …" form, with
//     "GB/s" / "MB" suffixes with or without a space.
//
// DP becomes the rank (kind "dp"); the other rank names become lower-case
// labels next to "phase" (prefill or decode). A TP label is never read as a
// DP rank. Timestamps are naive worker-local wall time with 10^-digits
// resolution (1 s without a fraction).
//
// Not supported: Dynamo-wrapped SGLang lines (UTC ISO prefix), JSON logging
// via SGLANG_LOGGING_CONFIG_PATH, hybrid-pool fields ("full token usage",
// "#full token", swa/mamba), "cpu graph", and ReqTimeStats of type "unified".
//
// Imports: internal/logmetric and the standard library only.
package sglang
