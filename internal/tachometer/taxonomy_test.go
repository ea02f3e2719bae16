package tachometer

import (
	"strings"
	"testing"
)

func TestDescribePlacement(t *testing.T) {
	frontend := []string{"frontend", "frontend_2"}
	backend := []string{"backend_decode"}
	mixed := []string{"frontend", "decode"}
	tests := []struct {
		name      string
		endpoints []string
		component string
		group     string
	}{
		// trtllm_*
		{"trtllm_engine_config_info", nil, "Workers", "Engine configuration"},
		{"trtllm_request_success_created", nil, "Workers", "Engine configuration"},
		{"trtllm_kv_event_publish_total", nil, "Workers", "Engine KV events"},
		{"trtllm_kv_transfer_latency_seconds", nil, "Workers", "Engine KV transfer"},
		{"trtllm_kv_cache_utilization", nil, "Workers", "Engine KV cache"},
		{"trtllm_prompt_cached_tokens_total", nil, "Workers", "Engine KV cache"},
		{"trtllm_spec_decode_acceptance_length", nil, "Workers", "Engine speculative decoding"},
		{"trtllm_gpu_memory_usage_bytes", nil, "Workers", "Engine memory"},
		{"trtllm_e2e_request_latency_seconds", nil, "Workers", "Engine requests and latency"},
		{"trtllm_num_requests_running", nil, "Workers", "Engine scheduling"},
		{"trtllm_max_batch_size", nil, "Workers", "Engine scheduling"},
		{"trtllm_iteration_latency_seconds", nil, "Workers", "Engine iterations"},
		// native HTTP server and upstream clients
		{"total_requests_total", nil, "Frontend", "Native HTTP requests"},
		{"ctx_first_token_latency_seconds", nil, "Frontend", "Native prefill client"},
		{"gen_completed_requests_total", nil, "Frontend", "Native decode client"},
		{"mme_queue_latency_seconds", nil, "Frontend", "Native multimodal client"},
		{"total_requests_created", nil, "Frontend", "Native HTTP metadata"},
		{"ctx_queue_latency_seconds_created", nil, "Frontend", "Native HTTP metadata"},
		// collection health and process groups
		{"go_goroutines", nil, "Host", "Collection health"},
		{"process_cpu_seconds_total", nil, "Host", "Collection health"},
		{"promhttp_metric_handler_requests_total", nil, "Host", "Collection health"},
		{"scrape_collector_success", nil, "Host", "Collection health"},
		{"namedprocess_scrape_errors", nil, "Host", "Collection health"},
		{"exporter_build_info", nil, "Host", "Collection health"},
		{"node_scrape_collector_duration_seconds", nil, "Host", "Collection health"},
		{"namedprocess_namegroup_cpu_seconds_total", nil, "Host", "Process CPU and scheduling"},
		{"namedprocess_namegroup_context_switches_total", nil, "Host", "Process CPU and scheduling"},
		{"namedprocess_namegroup_memory_bytes", nil, "Host", "Process memory"},
		{"namedprocess_namegroup_num_threads", nil, "Host", "Processes and threads"},
		// GPU, with the DCGM_ prefix ignored
		{"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", nil, "GPU", "NVLink and PCIe"},
		{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", nil, "GPU", "NVLink and PCIe"},
		{"DCGM_FI_DEV_FB_USED", nil, "GPU", "Framebuffer memory"},
		{"gpu_mem_total", nil, "GPU", "Framebuffer memory"},
		{"DCGM_FI_DEV_SM_CLOCK", nil, "GPU", "Power, clocks and temperature"},
		{"DCGM_FI_DEV_POWER_USAGE", nil, "GPU", "Power, clocks and temperature"},
		{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", nil, "GPU", "Power, clocks and temperature"},
		{"DCGM_FI_DEV_MEMORY_TEMP", nil, "GPU", "Power, clocks and temperature"},
		{"gpu_power", nil, "GPU", "Power, clocks and temperature"},
		{"gpu_temp", nil, "GPU", "Power, clocks and temperature"},
		{"DCGM_FI_DEV_XID_ERRORS", nil, "GPU", "Hardware events"},
		{"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", nil, "GPU", "Hardware events"},
		{"DCGM_FI_DEV_ROW_REMAP_FAILURE", nil, "GPU", "Hardware events"},
		{"DCGM_FI_DEV_VGPU_LICENSE_STATUS", nil, "GPU", "Hardware events"},
		{"DCGM_FI_DEV_GPU_UTIL", nil, "GPU", "Utilization"},
		{"DCGM_FI_PROF_SM_ACTIVE", nil, "GPU", "Utilization"},
		{"gpu_util", nil, "GPU", "Utilization"},
		// router
		{"dynamo_frontend_router_queue_pending_requests", nil, "Router", "Queue and backpressure"},
		{"dynamo_router_backpressure_events_total", nil, "Router", "Queue and backpressure"},
		{"dynamo_router_overhead_total_ms", nil, "Router", "Routing decisions"},
		{"dynamo_component_router_kv_hit_rate", nil, "Router", "KV matching and cache"},
		{"dynamo_router_overlap_blocks", nil, "Router", "KV matching and cache"},
		{"dynamo_router_cache_hits_total", nil, "Router", "KV matching and cache"},
		{"dynamo_component_router_decisions_total", nil, "Router", "Worker selection and feedback"},
		{"dynamo_component_kv_cache_events_applied", nil, "Router", "KV index and events"},
		{"dynamo_component_ckf_blocks", nil, "Router", "KV index and events"},
		{"dynamo_frontend_worker_active_decode_blocks", nil, "Router", "Worker selection and feedback"},
		// frontend runtime and dispatch
		{"dynamo_tokio_alive_tasks", nil, "Frontend", "Tokio runtime"},
		{"dynamo_frontend_event_loop_delay_seconds", nil, "Frontend", "Tokio runtime"},
		{"dynamo_request_plane_queue_seconds", nil, "Frontend", "Worker dispatch and streaming"},
		{"dynamo_transport_bytes_sent_total", nil, "Frontend", "Worker dispatch and streaming"},
		// work handler and admission
		{"dynamo_work_handler_pool_active_tasks", nil, "Workers", "Work-handler pool"},
		{"dynamo_work_handler_time_to_first_response_seconds", nil, "Workers", "First response and transport"},
		{"dynamo_work_handler_network_transit_seconds", nil, "Workers", "First response and transport"},
		{"dynamo_work_handler_queue_depth", nil, "Workers", "Admission and queues"},
		{"dynamo_engine_request", nil, "Workers", "Admission and queues"},
		{"dynamo_request_queue", nil, "Workers", "Admission and queues"},
		{"dynamo_rejection_request_total", nil, "Workers", "Admission and queues"},
		// dynamo_component_* follows its endpoints
		{"dynamo_component_uptime_seconds", backend, "Workers", "Component lifecycle"},
		{"dynamo_component_model_load_time_seconds", frontend, "Frontend", "Component lifecycle"},
		{"dynamo_component_response_bytes_total", mixed, "Workers", "First response and transport"},
		{"dynamo_component_inflight_requests", nil, "Workers", "Request lifecycle"},
		{"dynamo_component_requests_total", frontend, "Frontend", "Request lifecycle"},
		// dynamo_frontend_*
		{"dynamo_frontend_detokenize_token", nil, "Frontend", "Detokenization"},
		{"dynamo_frontend_tokenizer_cache_hits_total", nil, "Frontend", "Tokenizer cache"},
		{"dynamo_frontend_tokenize_seconds", nil, "Frontend", "Tokenization"},
		{"dynamo_frontend_template_seconds", nil, "Frontend", "Tokenization"},
		{"dynamo_frontend_model_total_kv_blocks", nil, "Frontend", "Advertised model metadata"},
		{"dynamo_frontend_model_cancellation_total", nil, "Frontend", "Requests and latency"},
		{"dynamo_frontend_stage_requests", nil, "Frontend", "Worker dispatch and streaming"},
		{"dynamo_frontend_requests_total", nil, "Frontend", "Requests and latency"},
		// host families, with the node_ prefix ignored
		{"node_infiniband_port_data_received_bytes_total", nil, "Host", "Network and InfiniBand"},
		{"memory_numa_MemUsed", nil, "Host", "NUMA memory and locality"},
		{"node_memory_MemAvailable_bytes", nil, "Host", "Host memory"},
		{"vmstat_pgmajfault", nil, "Host", "Paging and reclaim"},
		{"cpu_time_total", nil, "Host", "Host scheduling"},
		{"procs_running", nil, "Host", "Host scheduling"},
		{"context_switches_total", nil, "Host", "Host scheduling"},
		{"intr_total", nil, "Host", "Host scheduling"},
		{"forks_total", nil, "Host", "Host scheduling"},
		{"boot_time_seconds", nil, "Host", "Host scheduling"},
		{"processes_state", nil, "Host", "Processes and threads"},
		// fallbacks
		{"custom_metric", frontend, "Frontend", "Other captured metrics"},
		{"custom_metric", backend, "Workers", "Other captured metrics"},
		{"custom_metric", mixed, "Host", "Other captured metrics"},
		{"custom_metric", nil, "Host", "Other captured metrics"},
		// engine Prometheus families are the workers' (page-compat.md), wherever scraped
		{"sglang:num_running_reqs", []string{"prefill"}, "Workers", "Engine scheduling"},
		{"tokenspeed:kv_cache_usage_perc", nil, "Workers", "Engine KV cache"},
		{"vllm:num_requests_waiting", []string{"node"}, "Workers", "Engine scheduling"},
	}
	for _, tt := range tests {
		d := Describe(tt.name, tt.endpoints, false)
		if d.Component != tt.component || d.Group != tt.group {
			t.Errorf("Describe(%q, %q) = %s / %s, want %s / %s", tt.name, tt.endpoints, d.Component, d.Group, tt.component, tt.group)
		}
		if want := indexOf(groupOrder[d.Component], d.Group); d.GroupOrder != want {
			t.Errorf("Describe(%q).GroupOrder = %d, want %d", tt.name, d.GroupOrder, want)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return unlisted
}

func TestDescribeUnitsTitlesAndKinds(t *testing.T) {
	tests := []struct {
		name     string
		title    string
		unit     string
		kind     ValueKind
		rateUnit string
	}{
		{"custom_metric", "Custom metric", "stored value", Stored, "stored value/s"},
		{"DCGM_FI_DEV_SM_CLOCK", "SM clock", "MHz", Stored, "MHz/s"},
		{"DCGM_FI_DEV_GPU_UTIL", "GPU utilization", "%", Stored, "%/s"}, // importer override
		{"DCGM_FI_DEV_FB_USED", "Framebuffer used", "MiB", Stored, "MiB/s"},
		{"FI_DEV_FB_USED", "GPU memory used", "MiB", Stored, "MiB/s"}, // override keyed by the raw name
		{"DCGM_FI_DEV_POWER_USAGE", "Power usage", "stored value", Stored, "stored value/s"},
		{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Pcie replay counter", "stored value", Counter, "stored value/s"},
		{"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "NVLink combined receive and transmit rate", "MB/s", Stored, "MB/s/s"},
		{"gpu_mem_total", "Historical memory-related alias", "stored value", Stored, "stored value/s"},
		{"cpu_time_total", "Cpu time total", "stored value", Stored, "stored value/s"},
		{"namedprocess_namegroup_cpu_seconds_total", "Process-group CPU", "s", Counter, "cores"},
		{"vmstat_pgmajfault", "Vmstat pgmajfault", "stored value", Counter, "stored value/s"},
		{"vmstat_nr_free_pages", "Vmstat nr free pages", "stored value", Stored, "stored value/s"},
		{"go_gc_duration_seconds_count", "Go gc duration seconds count", "observations", Counter, "observations/s"},
		{"dynamo_frontend_disconnected_clients", "Disconnected clients", "disconnects", Counter, "disconnects/s"},
		{"dynamo_frontend_detokenize_total_us", "Accumulated detokenization time", "µs", Counter, "µs/s"},
		{"dynamo_router_overhead_total_ms", "Routing decision time", "ms", Stored, "ms/s"},
		{"dynamo_tokio_worker_mean_poll_time_ns", "Tokio mean poll time", "ns", Stored, "ns/s"},
		{"dynamo_component_kv_cache_blocks_bytes", "Kv cache blocks bytes", "bytes", Stored, "bytes/s"},
		{"dynamo_frontend_output_tokens_total", "Output tokens", "tokens", Counter, "tokens/s"},
		{"dynamo_component_router_kv_hit_rate", "Predicted KV overlap ratio", "ratio", Stored, "ratio/s"},
		{"dynamo_component_fd_ratio", "Fd ratio", "ratio", Stored, "ratio/s"},
		{"dynamo_tokio_worker_busy_ratio", "Tokio poll-time proxy", "stored value", Stored, "stored value/s"},
		{"trtllm_engine_config_info", "Engine config info", "info", Stored, "info/s"},
		{"trtllm_kv_cache_hit_rate", "Engine KV cache hit ratio", "ratio", Stored, "ratio/s"},
		{"trtllm_total_context_tokens", "Context tokens per iteration", "tokens/iteration", Stored, "tokens/iteration/s"},
		{"trtllm_kv_cache_tokens_per_block", "Kv cache tokens per block", "tokens/block", Stored, "tokens/block/s"},
		{"trtllm_kv_event_publish_total", "Kv event publish total", "events", Counter, "events/s"},
		{"trtllm_kv_cache_free_blocks", "Engine KV cache free blocks", "blocks", Stored, "blocks/s"},
		{"trtllm_request_success_total", "Request success total", "requests", Counter, "requests/s"},
		{"trtllm_kv_transfer_speed_gb_s", "Kv transfer speed gb s", "GB/s", Stored, "GB/s/s"},
		{"trtllm_num_requests_running", "Running requests", "requests", Stored, "requests/s"},
		{"trtllm_request_success_created", "Request success created", "epoch s", Stored, "epoch s/s"},
		{"total_requests_total", "Native HTTP: Requests started", "requests", Counter, "requests/s"},
		{"ctx_first_token_latency_seconds", "Prefill client: First streamed response latency", "s", Stored, "s/s"},
		{"gen_http_exceptions_total", "Decode client: HTTP errors", "errors", Counter, "errors/s"},
		{"total_responses_total", "Native HTTP: Responses", "responses", Counter, "responses/s"},
		{"mme_total_requests_created", "Multimodal client metric creation time", "epoch s", Stored, "epoch s/s"},
		{"total_requests_created", "Native HTTP metric creation time", "epoch s", Stored, "epoch s/s"},
		{"tokenspeed:kv_cache_usage_perc", "KV pages in use", "ratio", Stored, "tokens/s"}, // "tokenspeed" reads as tokens before the override
		{"sglang:num_running_reqs", "Running requests", "requests", Stored, "stored value/s"},
		{"load1", "Host load (1 min)", "load", Stored, "stored value/s"},
	}
	for _, tt := range tests {
		d := Describe(tt.name, nil, false)
		if d.Title != tt.title || d.Unit != tt.unit || d.ValueKind != tt.kind || d.RateUnit != tt.rateUnit {
			t.Errorf("Describe(%q) = title %q unit %q kind %s rate %q; want %q %q %s %q",
				tt.name, d.Title, d.Unit, d.ValueKind, d.RateUnit, tt.title, tt.unit, tt.kind, tt.rateUnit)
		}
		if (d.ValueKind == Counter) != d.Counter {
			t.Errorf("Describe(%q): counter flag %v disagrees with kind %s", tt.name, d.Counter, d.ValueKind)
		}
	}
}

func TestDescribeOrderFeaturedAndNotes(t *testing.T) {
	first := Describe("dynamo_frontend_requests_total", nil, false)
	if first.Order != 0 || !first.Featured {
		t.Errorf("requests_total: order %d featured %v", first.Order, first.Featured)
	}
	if d := Describe("DCGM_FI_DEV_FB_USED", nil, false); d.Order != 14 || !d.Featured {
		t.Errorf("FB_USED: order %d featured %v", d.Order, d.Featured)
	}
	if d := Describe("custom_metric", nil, false); d.Order != unlisted || d.Featured || d.GroupOrder != indexOf(groupOrder["Host"], "Other captured metrics") {
		t.Errorf("unknown: %+v", d)
	}
	hist := Describe("dynamo_frontend_time_to_first_token_seconds", []string{"frontend"}, true)
	if hist.ValueKind != Histogram || hist.Unit != "observations" || hist.ObservationUnit != "s" ||
		!hist.Counter || !strings.Contains(hist.Description, "raw cumulative bucket observations") {
		t.Errorf("histogram: %+v", hist)
	}
	if d := Describe("dynamo_frontend_requests_total", nil, false); !strings.HasSuffix(d.Description, "not a per-second rate.") {
		t.Errorf("counter description = %q", d.Description)
	}
	notes := map[string]string{
		"trtllm_iteration_latency_seconds":      "Latest published iteration latency gauge",
		"trtllm_request_success_created":        "Metric creation timestamp",
		"cpu_time_total":                        "Quantile of cumulative per-CPU counters",
		"dynamo_frontend_disconnected_clients":  "Historically exported as a gauge",
		"dynamo_frontend_model_total_kv_blocks": "Advertised model gauge",
	}
	for name, want := range notes {
		if d := Describe(name, nil, false); !strings.HasPrefix(d.Quality, want) {
			t.Errorf("Describe(%q).Quality = %q, want prefix %q", name, d.Quality, want)
		}
	}
	descriptions := map[string]string{
		"trtllm_num_requests_running":                     "Scraped gauges report the latest published engine statistics",
		"trtllm_e2e_request_latency_seconds":              "recorded when a request finishes",
		"ctx_per_token_latency_seconds":                   "upstream prefill client",
		"go_goroutines":                                   "Collector/exporter instrumentation",
		"namedprocess_namegroup_thread_cpu_seconds_total": "Thread names identify exported groups",
		"dynamo_tokio_alive_tasks":                        "Runtime activity observed",
		"dynamo_frontend_worker_active_decode_blocks":     "Router-side estimates",
		"dynamo_frontend_inflight_requests":               "Server-observed request measurements",
		"DCGM_FI_DEV_MEM_COPY_UTIL":                       "Memory-controller busy percentage",
		"trtllm_kv_transfer_latency_seconds":              "TRT-LLM request transfer timing",
		"tokenspeed:num_requests_waiting":                 "Requests waiting in the engine scheduler queue.",
		"DCGM_FI_DEV_SM_CLOCK":                            "Captured values retain their endpoint",
	}
	for name, want := range descriptions {
		if d := Describe(name, nil, false); !strings.Contains(d.Description, want) {
			t.Errorf("Describe(%q).Description = %q, want %q", name, d.Description, want)
		}
	}
}
