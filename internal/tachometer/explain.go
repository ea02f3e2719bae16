package tachometer

import "strings"

// explain returns the description and data-quality note of a canonical
// family name in the given group. Notes say what a value is not, so that a
// chart is not read as a measurement it cannot support.
func explain(n, group string) (description, quality string) {
	description = "Captured values retain their endpoint, inline labels, and capture metadata."
	if strings.HasPrefix(n, "trtllm_") {
		description = "TRT-LLM engine measurements at the captured endpoint. Preserve worker role, process and rank labels; " +
			"engine observations are not frontend/client measurements."
		switch group {
		case "Engine scheduling", "Engine iterations", "Engine memory", "Engine KV cache":
			description += " Scraped gauges report the latest published engine statistics, not every iteration."
		}
		if engineRequestMetrics[n] {
			description += " Request statistics and token counts are recorded when a request finishes."
		}
	} else if role, base, ok := nativeHTTP(n); ok {
		side := "server"
		if role != "" {
			side = "upstream " + strings.ToLower(role) + " client"
		}
		description = "Native serving HTTP " + side + " measurements at this endpoint; keep server and worker identities separate."
		switch base {
		case "per_token_latency_seconds":
			description += " Observations are gaps between streamed responses, which need not each contain one token."
		case "first_token_latency_seconds":
			description += " Time to the first upstream streamed response, not whole-request completion."
		}
	} else if group == "Collection health" {
		description = "Collector/exporter instrumentation; process and Go statistics here describe the exporter itself."
	} else if strings.HasPrefix(n, "namedprocess_namegroup_") {
		description = "Observed process groups selected by the exporter. Use groupname and endpoint labels to identify a process."
		if strings.Contains(n, "thread") {
			description += " Thread names identify exported groups, not guaranteed individual threads or runtime pools."
		}
	} else if group == "Tokio runtime" {
		description = "Runtime activity observed at the selected frontend endpoint; it does not isolate HTTP from router work."
	} else if group == "Worker selection and feedback" {
		description = "Router-side estimates and worker feedback; these are not engine occupancy measurements."
	} else if group == "Requests and latency" {
		description = "Server-observed request measurements. Outcomes use the server's own definitions."
	}

	switch {
	case n == "trtllm_iteration_latency_seconds":
		quality = "Latest published iteration latency gauge. Its scrape distribution is not an all-iteration latency histogram."
	case n == "trtllm_total_context_tokens":
		quality = "Context tokens in the reported iteration; not a cumulative token counter or tokens-per-second rate."
	case n == "trtllm_time_per_output_token_seconds":
		quality = "Distribution of per-request average decode time per output token; not individual inter-token latency."
	case n == "trtllm_kv_cache_hit_rate":
		quality = "Engine-reported cache reuse ratio; not the router's predicted KV overlap."
	case n == "trtllm_spec_decode_acceptance_length" || n == "trtllm_spec_decode_draft_overhead":
		quality = "Engine-reported scalar; units are not encoded in the capture and this producer version is not verified."
	case strings.HasPrefix(n, "trtllm_kv_transfer_") && !strings.HasSuffix(n, "_created"):
		description = "TRT-LLM request transfer timing, size or speed published by Dynamo. " +
			"Transfer speed uses decimal GB/s; this timer does not include the full prefill-to-decode handoff."
	case strings.HasSuffix(n, "_created"):
		quality = "Metric creation timestamp in epoch seconds, not a latency or event count."
	case n == "dynamo_tokio_worker_busy_ratio":
		quality = "Historical poll-time proxy, not CPU utilization or a true busy ratio. Prefer mean poll time and queue metrics."
	case strings.HasPrefix(n, "cpu_time_"):
		quality = "Quantile of cumulative per-CPU counters. Differences are not CPU utilization quantiles or node CPU totals."
	case n == "gpu_mem_total":
		quality = "Historical broad memory-field rename; cannot identify GPU capacity from this stored alias."
	case n == "dynamo_frontend_stage_duration_seconds" || n == "dynamo_frontend_tokenizer_latency_ms":
		quality = "Historical attached histogram sums/counts can cross label sets; use recorded bucket samples."
	case n == "dynamo_engine_request":
		quality = "Handler-admitted request gauge; does not measure scheduled engine requests or engine occupancy."
	case n == "dynamo_work_handler_pool_active_tasks":
		description = "Active handler tasks, including requests that may be waiting inside a backend."
	case n == "dynamo_work_handler_time_to_first_response_seconds":
		description = "Worker handler setup to its first prologue response; not engine TTFT or frontend time to first token."
	case n == "dynamo_component_router_kv_transfer_estimated_latency_seconds":
		quality = "Reported handoff interval can include admission/slot waiting; it is not an isolated KV-transfer timer."
	case n == "dynamo_component_router_time_to_first_token_seconds":
		quality = "Historical router timing can observe the prefill leg more than once; not frontend/client TTFT."
	case strings.HasPrefix(n, "dynamo_frontend_model_") && !strings.Contains(n, "cancellation"):
		quality = "Advertised model gauge can be overwritten by different worker types; do not infer per-role engine capacity."
	case n == "FI_DEV_NVLINK_BANDWIDTH_TOTAL":
		description = "Already a combined receive/transmit rate; not a counter and not isolated KV-transfer traffic."
	case n == "FI_DEV_MEM_COPY_UTIL":
		description = "Memory-controller busy percentage; does not measure achieved memory bandwidth."
	case n == "dynamo_frontend_disconnected_clients":
		quality = "Historically exported as a gauge but incremented cumulatively for disconnect events."
	case n == "dynamo_request_plane_queue_seconds":
		description = "Request-envelope preparation duration before send; does not measure waiting in a dispatch queue."
	case n == "dynamo_component_requests_total":
		description = "Requests received at worker handler entry; does not establish successful completion."
	case n == "dynamo_frontend_queued_requests":
		description = "Requests awaiting a first token; does not identify which internal queue they occupy."
	case n == "dynamo_frontend_stage_requests":
		description = "Concurrent requests by observed frontend stage, including dispatch awaiting a first token."
	}
	return description, quality
}
