// Package synth generates deterministic synthetic benchmark runs: a run
// directory laid out like a real capture, whose files dsight imports and
// whose size and shape the benchmarks and demos rely on.
//
// Generation has three steps. NewPlan simulates the client workload
// (sessions, agents, requests and their timings) from a seeded PCG stream.
// The serving side (serving.go) then assigns every request a Dynamo
// deployment's view of it: a request id, a frontend, prefill and decode
// workers and ranks, and (timeline.go) every server-side span and engine
// stage, placed inside the client's [start, first token, end]. Finally each
// source writer renders that one assignment in its on-disk format, streaming
// through a bufio.Writer:
//
//   - aiperf.go: AIPerf profile_export.jsonl (or agentperf.go: native
//     AgentPerf requests.jsonl, phase manifest and phase analysis);
//   - frontend.go: Dynamo frontend logs bridging x_request_id to the Dynamo
//     request id, in readable and JSONL encodings;
//   - otel.go: the lifecycle spans as an OpenTelemetry Collector file export;
//   - workerlog.go, sglang.go: worker logs with Dynamo binding lines and
//     SGLang or TokenSpeed batch and ReqTimeStats lines in worker-local time;
//   - tachometer.go: a Tachometer capture (final.parquet and an Arrow tail)
//     of DCGM and engine gauges, and tachometer_config.go the scraper's
//     tachometer_config.toml restating its endpoints' metadata.
//
// Because every writer renders the same assignment, a request's spans,
// bridges and bindings name the same request id, workers and hosts, and the
// batch lines and gauges report the occupancy (occupancy.go) the timelines
// imply. The same Config always yields byte-identical files: no wall clock,
// no map iteration, and per-request detail comes from streams derived from
// the seed and the request's creation index, not from write order. Memory
// grows with the number of requests, never with the bytes or samples
// written.
//
// The package imports the standard library and internal/tachometer, whose
// capture writer is the only way to write Parquet without importing Arrow
// here. It must not import the dsight importer or any parser, so that
// generated data stays an independent witness of the formats; its tests
// read every file back with those parsers.
package synth
