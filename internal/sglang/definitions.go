package sglang

import (
	"slices"

	"github.com/dsight/dsight/internal/logmetric"
)

// GeneratorName identifies this generator in series and catalog entries.
const GeneratorName = "sglang"

const namePrefix = "log_sglang_"

type valueKind uint8

const (
	kindCount   valueKind = iota // ASCII digits
	kindDecimal                  // unsigned decimal
	kindBool                     // exactly True or False
)

type phaseMask uint8

const (
	phasePrefill phaseMask = 1 << iota
	phaseDecode
	phaseBoth = phasePrefill | phaseDecode
)

// batchField maps one "key: value" field of a batch line to a metric.
type batchField struct {
	key, suffix, title, unit, about string
	kind                            valueKind
	phases                          phaseMask
}

// batchFields is in catalog order; the index is the field's identity.
var batchFields = [...]batchField{
	{"#new-seq", "new_sequences", "New sequences", "requests", "Prefill batch #new-seq: requests admitted into the batch.", kindCount, phasePrefill},
	{"#new-token", "new_tokens", "New tokens", "tokens", "Prefill batch #new-token: uncached input tokens in the batch.", kindCount, phasePrefill},
	{"#cached-token", "cached_tokens", "Cached tokens", "tokens", "Prefill batch #cached-token, SGLang's batch log_hit_tokens: prefix-cache hit tokens of this batch, not a workload cache hit rate.", kindCount, phasePrefill},
	{"#pending-token", "pending_tokens", "Pending tokens", "tokens", "Prefill batch #pending-token snapshot: tokens queued but not yet scheduled.", kindCount, phasePrefill},
	{"#bootstrap-req", "bootstrap_requests", "Bootstrap requests", "requests", "Prefill batch #bootstrap-req snapshot: requests waiting for the decode handshake.", kindCount, phasePrefill},
	{"#inflight-req", "inflight_requests", "Inflight requests", "requests", "Prefill batch #inflight-req snapshot: requests whose KV cache is being sent.", kindCount, phasePrefill},
	{"#optimistic-req", "optimistic_requests", "Optimistic requests", "requests", "Prefill batch #optimistic-req snapshot: requests admitted before bootstrap finished.", kindCount, phasePrefill},
	{"input throughput (token/s)", "input_throughput_tokens_per_second", "Input throughput", "tokens/s", "Prefill input throughput as logged: the logger's own rate over its preceding logging interval, not resampled.", kindDecimal, phasePrefill},
	{"#token", "decode_tokens", "Decode tokens", "tokens", "Decode batch #token snapshot: the decode pool's used tokens, excluding available and evictable tokens.", kindCount, phaseDecode},
	{"#prealloc-req", "preallocated_requests", "Preallocated requests", "requests", "Decode batch #prealloc-req snapshot: handshaken requests waiting for KV space.", kindCount, phaseDecode},
	{"#transfer-req", "transfer_requests", "Transfer requests", "requests", "Decode batch #transfer-req snapshot: requests whose KV cache is arriving.", kindCount, phaseDecode},
	{"#retracted-req", "retracted_requests", "Retracted requests", "requests", "Decode batch #retracted-req snapshot: requests evicted from the running batch.", kindCount, phaseDecode},
	{"accept len", "accept_length", "Accept length", "tokens", "Decode accept len as logged: speculative acceptance length over this decode logging interval.", kindDecimal, phaseDecode},
	{"accept rate", "accept_rate", "Accept rate", "ratio", "Decode accept rate as logged: speculative acceptance rate over this decode logging interval.", kindDecimal, phaseDecode},
	{"pre-allocated usage", "preallocated_usage", "Pre-allocated usage", "ratio", "Decode pre-allocated usage as logged: preallocated tokens divided by the scheduler token capacity.", kindDecimal, phaseDecode},
	{"gen throughput (token/s)", "generation_throughput_tokens_per_second", "Generation throughput", "tokens/s", "Decode generation throughput as logged: the logger's own rate over its preceding logging interval, not resampled.", kindDecimal, phaseDecode},
	{"#running-req", "running_requests", "Running requests", "requests", "Batch #running-req snapshot.", kindCount, phaseBoth},
	{"#queue-req", "queued_requests", "Queued requests", "requests", "Batch #queue-req snapshot.", kindCount, phaseBoth},
	{"token usage", "token_usage", "Token usage", "ratio", "Batch token usage as logged: the token pool's reported usage ratio, not continuously measured occupancy.", kindDecimal, phaseBoth},
	{"cuda graph", "cuda_graph_enabled", "CUDA graph enabled", "boolean", "Batch cuda graph flag: 1 for True, 0 for False.", kindBool, phaseBoth},
}

const batchScope = " A snapshot per logged batch line, scoped to the logged ranks and phase; values from different ranks, phases, files or workers are never summed."

// Request metrics, in catalog order. The index is the value's identity.
const (
	reqInput = iota
	reqCached
	reqUncached
	reqCachedFraction
	reqBootstrap
	reqBootstrapQueue
	reqPreallocQueue
	reqQueue
	reqForward
	reqAllocWait
	reqTransfer
	reqTransferSpeed
	reqTransferTotal
	numRequestValues
)

type requestMetric struct {
	suffix, title, unit, about string
}

const durationCaveat = " At request completion; a logged zero can mean a missing timing endpoint. Stages may overlap: do not sum them across stages or requests, or read them as client latency."

var requestMetrics = [numRequestValues]requestMetric{
	reqInput:          {"request_input_tokens", "Request input tokens", "tokens", "ReqTimeStats input_len of one completed request."},
	reqCached:         {"request_cached_input_tokens", "Request cached input tokens", "tokens", "ReqTimeStats cached_input_len of one completed request; not a workload cache hit rate."},
	reqUncached:       {"request_uncached_input_tokens", "Request uncached input tokens (derived)", "tokens", "Derived: input_len - cached_input_len of the same request, only when both counts are valid and cached_input_len <= input_len."},
	reqCachedFraction: {"request_cached_input_fraction", "Request cached input fraction (derived)", "ratio", "Derived: cached_input_len / input_len of the same request, only when input_len > 0 and 0 <= cached_input_len <= input_len; not the batch #cached-token share or a workload cache hit rate."},
	reqBootstrap:      {"request_bootstrap_duration_ms", "Request bootstrap duration", "ms", "ReqTimeStats bootstrap_duration, or bootstrap(…) of the newest breakdown form." + durationCaveat},
	reqBootstrapQueue: {"request_bootstrap_queue_duration_ms", "Request bootstrap queue duration", "ms", "Prefill bootstrap_queue_duration, logged when bootstrap has not completed (in the newest form: a total without breakdown)." + durationCaveat},
	reqPreallocQueue:  {"request_preallocation_queue_duration_ms", "Request preallocation queue duration", "ms", "Decode prealloc_queue_duration, logged when no bootstrap-completion timestamp is available (in the newest form: a total without breakdown)." + durationCaveat},
	reqQueue:          {"request_queue_duration_ms", "Request queue duration", "ms", "ReqTimeStats queue_duration, from waiting-queue entry to forward entry." + durationCaveat},
	reqForward:        {"request_forward_duration_ms", "Request forward duration", "ms", "ReqTimeStats forward_duration, from forward entry to completion; on prefill it can include chunking and transfer." + durationCaveat},
	reqAllocWait:      {"request_allocation_wait_duration_ms", "Request allocation wait duration", "ms", "ReqTimeStats alloc_wait_duration, or alloc_wait(…) of the newest breakdown form." + durationCaveat},
	reqTransfer:       {"request_transfer_duration_ms", "Request transfer duration", "ms", "Decode transfer_duration." + durationCaveat},
	reqTransferSpeed:  {"request_transfer_speed_gib_per_second", "Request transfer speed", "GiB/s", "Prefill transfer_speed as logged: SGLang divides bytes by 1024³ though it prints GB/s. With chunked prefill it can cover only the last chunk, so it is not a whole-request rate."},
	reqTransferTotal:  {"request_transfer_total_mib", "Request transfer total", "MiB", "Prefill transfer_total as logged: SGLang divides bytes by 1024² though it prints MB. With chunked prefill it can cover only the last chunk."},
}

const requestScope = " One point per request at the log emission time (after completion), scoped to the logged ranks and phase; the request id stays in the source line."

// batchNames and requestNames hold the full metric names, built once.
var (
	batchNames   [len(batchFields)]string
	requestNames [numRequestValues]string
	definitions  []logmetric.Definition
)

func init() {
	def := func(suffix, title, unit, about string) logmetric.Definition {
		return logmetric.Definition{
			Name: namePrefix + suffix, Title: title, Unit: unit, Description: about,
			// Second-resolution logs hold several batches per timestamp:
			// every line is kept, equal values included.
			Temporal:  logmetric.TemporalEvent,
			Component: logmetric.ComponentWorkers, Group: logmetric.GroupLogDerived,
		}
	}
	for i, f := range batchFields {
		batchNames[i] = namePrefix + f.suffix
		definitions = append(definitions, def(f.suffix, f.title, f.unit, f.about+batchScope))
	}
	for i, m := range requestMetrics {
		requestNames[i] = namePrefix + m.suffix
		definitions = append(definitions, def(m.suffix, m.title, m.unit, m.about+requestScope))
	}
}

// Generator is the SGLang log metric generator. The zero value is ready to use.
type Generator struct{}

var _ logmetric.Generator = Generator{}

// Name implements logmetric.Generator.
func (Generator) Name() string { return GeneratorName }

// Definitions returns a copy of the catalog.
func (Generator) Definitions() []logmetric.Definition { return slices.Clone(definitions) }
