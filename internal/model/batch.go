package model

// Batch observation kinds: what a worker log line recorded about the
// engine's batches. A TRT-LLM iteration line describes one forward
// iteration of the executor loop; a TokenSpeed batch line is a periodic
// snapshot of scheduler state and is not a forward iteration.
const (
	BatchTRTLLMIteration    = "trtllm_iteration"
	BatchTokenSpeedSnapshot = "tokenspeed_snapshot"
)

// Rank namespaces of batch observations. Ranks of different kinds are
// never equated: a TRT-LLM global rank is not a TokenSpeed attention TP rank.
const (
	RankGlobal      = "global_rank"
	RankAttentionTP = "attention_tp"
)

// BatchObservation is one iteration or batch snapshot line of a worker log,
// kept as logged. Counters that lag the forward pass under overlap
// scheduling (the previous device step time, iteration counters) are not
// shifted, and shared batch time is never assigned to requests. Every
// counter the line did not record is nil.
type BatchObservation struct {
	Kind string // BatchTRTLLMIteration or BatchTokenSpeedSnapshot
	// Format names the recorded field order, e.g. "trtllm-v4" (see
	// internal/trtllm) or "tokenspeed".
	Format string
	// Worker, Host and Role come from the log's file name.
	Worker, Host, Role string
	// Rank is the recorded rank in RankKind's namespace (the TRT-LLM global
	// rank, the TokenSpeed attention TP rank); LocalRank is TRT-LLM's
	// per-node rank, kept apart.
	Rank      *int64
	RankKind  string
	LocalRank *int64
	// LocalTime is the timestamp text as written; FracDigits its number of
	// fractional-second digits (0: one-second precision).
	LocalTime  string
	FracDigits int
	// StartNS is the aligned absolute epoch time, nil when the timestamp has
	// no offset and no --iteration-timezone was given. The observation
	// covers [StartNS, StartNS + resolution).
	StartNS *int64
	// BatchKind is "prefill" or "decode" for snapshots, nil for iterations.
	BatchKind *string
	Iteration *int64
	Ints      [NumBatchInts]*int64
	Floats    [NumBatchFloats]*float64
	Evidence  LineRef
}

// ResolutionNS is the timestamp resolution in nanoseconds (1 s without a
// fraction; 0 when finer than 1 ns).
func (o *BatchObservation) ResolutionNS() int64 {
	if o.FracDigits > 9 {
		return 0
	}
	ns := int64(1_000_000_000)
	for range o.FracDigits {
		ns /= 10
	}
	return ns
}

// Integer counters of a batch observation, by index into Ints. Names are
// the answer's field names.
const (
	BatchRequests        = iota // TRT-LLM num_scheduled_requests
	BatchRunning                // TokenSpeed #running-req
	BatchQueued                 // TokenSpeed #queue-req
	BatchCurrankRequests        // TRT-LLM currank_total_requests a/_
	BatchTotalRequests          // TRT-LLM currank_total_requests _/b
	BatchCtxRequests            // states num_ctx_requests
	BatchCtxTokens              // states num_ctx_tokens
	BatchGenTokens              // states num_generation_tokens (includes CUDA-graph padding)
	BatchCachedKVTokens         // states cached_kv_tokens
	BatchCachedKVLen            // cached_kv_len
	BatchNumActive              // num_active
	BatchNumFetched             // num_fetched
	BatchNumDummy               // num_dummy
	BatchNumUnscheduled         // num_unscheduled
	BatchPagesActive            // TokenSpeed #pages(active/…)
	BatchPagesCached            // TokenSpeed #pages(…/cached/…)
	BatchPagesTotal             // TokenSpeed #pages(…/total)
	BatchNewSeq                 // TokenSpeed #new-seq
	BatchNewToken               // TokenSpeed #new-token
	BatchCachedToken            // TokenSpeed #cached-token
	NumBatchInts
)

// Float counters, by index into Floats.
const (
	BatchKVCacheUtil      = iota // TRT-LLM kv_cache_util
	BatchHostStepMS              // TRT-LLM host_step_time
	BatchPrevDeviceStepMS        // TRT-LLM prev_device_step_time: the previous device step
	BatchElapsedS                // TRT-LLM elapsed_time (older field orders)
	BatchPageRatio               // TokenSpeed page ratio
	BatchGenThroughput           // TokenSpeed gen throughput (token/s)
	BatchAvgAcceptLen            // TokenSpeed avg_accept_len
	BatchAcceptRate              // TokenSpeed accept_rate
	NumBatchFloats
)

// BatchIntNames and BatchFloatNames name the counters in answers and shards.
var (
	BatchIntNames = [NumBatchInts]string{
		"batch_requests", "running_requests", "queued_requests", "currank_requests", "total_requests",
		"ctx_requests", "ctx_tokens", "generation_tokens", "cached_kv_tokens", "cached_kv_len",
		"num_active", "num_fetched", "num_dummy", "num_unscheduled",
		"pages_active", "pages_cached", "pages_total", "new_seq", "new_tokens", "cached_tokens",
	}
	BatchFloatNames = [NumBatchFloats]string{
		"kv_cache_util", "host_step_ms", "previous_device_step_ms", "elapsed_s",
		"page_ratio", "gen_throughput", "avg_accept_len", "accept_rate",
	}
)
