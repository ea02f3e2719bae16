// Package tokenspeed decodes TokenSpeed (including Dynamo–TokenSpeed) worker
// log lines into log metric observations (log_tokenspeed_*): active decode
// requests against the logged per-scheduler batch limit, and active KV pages
// against the usable page pool of the same snapshot.
//
// Supported line shapes (shared/spec/input-formats.md §7):
//
//   - prefix "[YYYY-MM-DD HH:MM:SS(,fff…)<whitespace>ATTN TP RANK n]", found
//     anywhere on the line (ANSI colour codes may precede it);
//   - "Prefill batch. " / "Decode batch. " after the prefix, with fields read
//     by label: "#running-req: n" and "#pages(active/cached/total): a/c/t"
//     (other fields, and "Mix batch.", are ignored);
//   - "Scheduler config: " after the prefix, with a whitespace-delimited
//     "max_batch_size=n".
//
// The rank is the attention TP rank (kind "attention_tp"); it is never
// equated with a DP, global or GPU rank. Timestamps are naive worker-local
// wall time with 10^-digits resolution. A configuration without a valid
// positive max_batch_size yields a null limit, which clears the previous one;
// a snapshot without page fields yields no page values (never zeros). The
// limit applies only to decode and aggregated workers.
//
// Imports: internal/logmetric and the standard library only.
package tokenspeed
