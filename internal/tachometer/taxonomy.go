package tachometer

import (
	"slices"
	"strings"
	"unicode"
)

// ValueKind says how a family's raw samples behave.
type ValueKind string

const (
	// Stored values are shown as recorded (gauges, info values, summary
	// quantiles, and anything not known to be cumulative).
	Stored ValueKind = "stored"
	// Counter values are raw cumulative samples, by known semantics or the
	// Prometheus _total convention; never inferred from sample trends.
	Counter ValueKind = "counter"
	// Histogram values are raw cumulative bucket observations.
	Histogram ValueKind = "histogram"
)

// Description is the presentation metadata of one metric family: where the
// Metrics panel lists it and how its values read. It never carries
// measurements.
type Description struct {
	Component   string    `json:"component"`
	Group       string    `json:"group"`
	GroupOrder  int       `json:"group_order"`
	Title       string    `json:"title"`
	Unit        string    `json:"unit"`
	RateUnit    string    `json:"rate_unit"`
	Counter     bool      `json:"counter"`
	Description string    `json:"description"`
	Quality     string    `json:"quality"`
	Featured    bool      `json:"featured"`
	Order       int       `json:"order"`
	ValueKind   ValueKind `json:"value_kind"`
	// ObservationUnit is the unit of the observed quantity for histograms
	// (Unit is then "observations"); empty otherwise.
	ObservationUnit string `json:"observation_unit,omitempty"`
}

// unlisted is the order of groups and families absent from the tables.
const unlisted = 100

// Describe classifies a family (its name without inline labels or the
// histogram _bucket suffix) captured at the given scraper endpoints. The
// DCGM_ and node_ exporter prefixes are ignored for classification. Unknown
// families keep their raw name, a humanised title and the "stored value" unit.
func Describe(name string, endpoints []string, histogram bool) Description {
	n := canonicalName(name)
	component, group := placement(n, endpoints)
	d := Description{
		Component:  component,
		Group:      group,
		GroupOrder: unlisted,
		Title:      title(n),
		Unit:       unit(n),
		Counter:    isCounter(n),
		Featured:   featured[n],
		Order:      unlisted,
	}
	d.Description, d.Quality = explain(n, group)
	if i := slices.Index(groupOrder[component], group); i >= 0 {
		d.GroupOrder = i
	}
	if i := slices.Index(displayOrder, n); i >= 0 {
		d.Order = i
	}
	d.RateUnit = d.Unit + "/s"
	if strings.HasSuffix(n, "cpu_seconds_total") {
		d.RateUnit = "cores"
	}
	if o, ok := overrides[name]; ok {
		d.Title, d.Unit = o.title, o.unit
		if o.description != "" {
			d.Description = o.description
		}
	}
	switch {
	case histogram:
		d.ValueKind = Histogram
		d.ObservationUnit = d.Unit
		d.Unit = "observations"
		d.Counter = true
		d.Description += " Displayed values are raw cumulative bucket observations; le is the bucket upper bound." +
			" No percentile, rate, or attached sum/count is substituted for a raw sample."
	case d.Counter:
		d.ValueKind = Counter
		d.Description += " Displayed values are raw cumulative samples, not a per-second rate."
	default:
		d.ValueKind = Stored
	}
	return d
}

func canonicalName(name string) string {
	if rest, ok := strings.CutPrefix(name, "DCGM_"); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(name, "node_"); ok {
		return rest
	}
	return name
}

func isCounter(n string) bool {
	if n == "FI_DEV_NVLINK_BANDWIDTH_TOTAL" || n == "gpu_mem_total" || strings.HasPrefix(n, "cpu_time_") {
		return false
	}
	return historicalCounters[n] || strings.HasSuffix(n, "_total")
}

// nativeHTTP recognises native serving HTTP families, optionally prefixed by
// the upstream client role, and returns the role and the base metric.
func nativeHTTP(n string) (role, base string, ok bool) {
	for _, p := range [...]struct{ prefix, role string }{{"ctx_", "Prefill"}, {"gen_", "Decode"}, {"mme_", "Multimodal"}} {
		if rest, found := strings.CutPrefix(n, p.prefix); found {
			role, n = p.role, rest
			break
		}
	}
	base = strings.TrimSuffix(n, "_created")
	if strings.HasSuffix(n, "_created") && !nativeHTTPMetrics[base] {
		base += "_total"
	}
	return role, base, nativeHTTPMetrics[base]
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func containsAny(s string, parts ...string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func allEndpointsStartWith(endpoints []string, prefix string) bool {
	if len(endpoints) == 0 {
		return false
	}
	for _, e := range endpoints {
		if !strings.HasPrefix(e, prefix) {
			return false
		}
	}
	return true
}

// placement applies the dashboard's placement rules; the first match wins.
func placement(n string, endpoints []string) (component, group string) {
	if strings.HasPrefix(n, "trtllm_") || isEngineFamily(n) {
		return "Workers", engineGroup(n)
	}
	if role, _, ok := nativeHTTP(n); ok {
		switch {
		case strings.HasSuffix(n, "_created"):
			return "Frontend", "Native HTTP metadata"
		case role != "":
			return "Frontend", "Native " + strings.ToLower(role) + " client"
		default:
			return "Frontend", "Native HTTP requests"
		}
	}
	switch {
	case hasAnyPrefix(n, "go_", "process_", "promhttp_", "scrape_collector_", "namedprocess_scrape_") || n == "exporter_build_info":
		return "Host", "Collection health"
	case strings.HasPrefix(n, "namedprocess_namegroup_"):
		switch {
		case containsAny(n, "cpu_", "context_switch"):
			return "Host", "Process CPU and scheduling"
		case strings.Contains(n, "memory"):
			return "Host", "Process memory"
		}
		return "Host", "Processes and threads"
	case hasAnyPrefix(n, "FI_DEV_", "FI_PROF_", "gpu_"):
		switch {
		case containsAny(n, "NVLINK", "PCIE"):
			return "GPU", "NVLink and PCIe"
		case containsAny(n, "FB_", "mem_total"):
			return "GPU", "Framebuffer memory"
		case containsAny(n, "CLOCK", "POWER", "ENERGY", "TEMP", "power", "temp"):
			return "GPU", "Power, clocks and temperature"
		case containsAny(n, "ERROR", "REMAPPED", "REMAP", "LICENSE"):
			return "GPU", "Hardware events"
		}
		return "GPU", "Utilization"
	case hasAnyPrefix(n, "dynamo_router_", "dynamo_component_router_", "dynamo_frontend_router_"):
		switch {
		case containsAny(n, "queue", "backpressure"):
			return "Router", "Queue and backpressure"
		case strings.Contains(n, "overhead"):
			return "Router", "Routing decisions"
		case containsAny(n, "cache", "overlap", "kv_hit"):
			return "Router", "KV matching and cache"
		}
		return "Router", "Worker selection and feedback"
	case hasAnyPrefix(n, "dynamo_component_kv_cache_", "dynamo_component_ckf_"):
		return "Router", "KV index and events"
	case strings.HasPrefix(n, "dynamo_frontend_worker_"):
		return "Router", "Worker selection and feedback"
	case strings.HasPrefix(n, "dynamo_tokio_") || strings.Contains(n, "event_loop"):
		return "Frontend", "Tokio runtime"
	case hasAnyPrefix(n, "dynamo_request_plane_", "dynamo_transport_"):
		return "Frontend", "Worker dispatch and streaming"
	case strings.HasPrefix(n, "dynamo_work_handler_"):
		switch {
		case strings.Contains(n, "pool"):
			return "Workers", "Work-handler pool"
		case containsAny(n, "response", "transit"):
			return "Workers", "First response and transport"
		}
		return "Workers", "Admission and queues"
	case n == "dynamo_engine_request" || n == "dynamo_request_queue" || n == "dynamo_rejection_request_total":
		return "Workers", "Admission and queues"
	case strings.HasPrefix(n, "dynamo_component_"):
		component := "Workers"
		if allEndpointsStartWith(endpoints, "frontend") {
			component = "Frontend"
		}
		switch {
		case containsAny(n, "load_time", "uptime"):
			return component, "Component lifecycle"
		case strings.Contains(n, "bytes"):
			return component, "First response and transport"
		}
		return component, "Request lifecycle"
	case strings.HasPrefix(n, "dynamo_frontend_"):
		switch {
		case strings.Contains(n, "detokenize"):
			return "Frontend", "Detokenization"
		case strings.Contains(n, "tokenizer_cache"):
			return "Frontend", "Tokenizer cache"
		case containsAny(n, "tokeniz", "template"):
			return "Frontend", "Tokenization"
		case strings.Contains(n, "model_") && !strings.Contains(n, "cancellation"):
			return "Frontend", "Advertised model metadata"
		case strings.Contains(n, "stage"):
			return "Frontend", "Worker dispatch and streaming"
		}
		return "Frontend", "Requests and latency"
	case strings.HasPrefix(n, "infiniband_"):
		return "Host", "Network and InfiniBand"
	case strings.HasPrefix(n, "memory_numa_"):
		return "Host", "NUMA memory and locality"
	case strings.HasPrefix(n, "memory_"):
		return "Host", "Host memory"
	case strings.HasPrefix(n, "vmstat_"):
		return "Host", "Paging and reclaim"
	case hasAnyPrefix(n, "cpu_", "procs_", "context_", "intr_", "forks_", "boot_"):
		return "Host", "Host scheduling"
	case strings.HasPrefix(n, "processes_"):
		return "Host", "Processes and threads"
	case allEndpointsStartWith(endpoints, "frontend"):
		return "Frontend", "Other captured metrics"
	case allEndpointsStartWith(endpoints, "backend"):
		return "Workers", "Other captured metrics"
	}
	return "Host", "Other captured metrics"
}

func engineGroup(n string) string {
	switch {
	case strings.HasSuffix(n, "_config_info") || strings.HasSuffix(n, "_created"):
		return "Engine configuration"
	case strings.Contains(n, "kv_event"):
		return "Engine KV events"
	case strings.Contains(n, "kv_transfer"):
		return "Engine KV transfer"
	case containsAny(n, "kv_cache", "prompt_cached"):
		return "Engine KV cache"
	case strings.Contains(n, "spec_decode"):
		return "Engine speculative decoding"
	case strings.Contains(n, "memory_usage"):
		return "Engine memory"
	case engineRequestMetrics[n]:
		return "Engine requests and latency"
	case containsAny(n, "num_", "batch_size"):
		return "Engine scheduling"
	}
	return "Engine iterations"
}

func unit(n string) string {
	if strings.HasSuffix(n, "_created") {
		return "epoch s"
	}
	if _, base, ok := nativeHTTP(n); ok {
		switch {
		case strings.HasSuffix(base, "_seconds"):
			return "s"
		case strings.Contains(base, "responses"):
			return "responses"
		case containsAny(base, "exceptions", "errors"):
			return "errors"
		}
		return "requests"
	}
	if strings.HasPrefix(n, "trtllm_") {
		switch {
		case strings.HasSuffix(n, "_config_info"):
			return "info"
		case trtllmRatioUnits[n]:
			return "ratio"
		case n == "trtllm_total_context_tokens" || n == "trtllm_avg_decoded_tokens_per_iter":
			return "tokens/iteration"
		case n == "trtllm_kv_cache_tokens_per_block":
			return "tokens/block"
		case strings.Contains(n, "kv_event") && !strings.Contains(n, "seconds"):
			return "events"
		case strings.Contains(n, "blocks"):
			return "blocks"
		case containsAny(n, "requests", "batch_size") || n == "trtllm_request_success_total" || n == "trtllm_request_error_total":
			return "requests"
		}
	}
	if u, ok := exactUnits[n]; ok {
		return u
	}
	switch {
	case n == "gpu_mem_total" || n == "dynamo_tokio_worker_busy_ratio" || strings.HasPrefix(n, "cpu_time_"):
		return "stored value"
	case strings.Contains(n, "bytes"):
		return "bytes"
	case strings.HasSuffix(n, "_ms"):
		return "ms"
	case strings.HasSuffix(n, "_ns"):
		return "ns"
	case strings.Contains(n, "seconds"):
		return "s"
	case strings.Contains(n, "tokens") || n == "dynamo_frontend_detokenize_token":
		return "tokens"
	case containsAny(n, "hit_rate", "fd_ratio"):
		return "ratio"
	}
	return "stored value"
}

func title(n string) string {
	if t, ok := titles[n]; ok {
		return t
	}
	if t, ok := engineTitles[n]; ok {
		return t
	}
	if role, base, ok := nativeHTTP(n); ok {
		if strings.HasSuffix(n, "_created") {
			if role != "" {
				return role + " client metric creation time"
			}
			return "Native HTTP metric creation time"
		}
		if role != "" {
			return role + " client: " + nativeTitles[base]
		}
		return "Native HTTP: " + nativeTitles[base]
	}
	short := n
	for _, prefix := range []string{"dynamo_frontend_", "dynamo_component_", "dynamo_", "trtllm_", "namedprocess_namegroup_", "FI_DEV_"} {
		if rest, ok := strings.CutPrefix(short, prefix); ok {
			short = rest
			break
		}
	}
	return capitalize(strings.ReplaceAll(short, "_", " "))
}

// capitalize upper-cases the first character and lower-cases the rest, as
// the dashboard's humanised titles do ("FB_USED" → "Fb used").
func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(strings.ToLower(s))
	r[0] = unicode.ToTitle(r[0])
	return string(r)
}

// engineFamilyPrefixes name the inference engines' own Prometheus families
// (SGLang, TokenSpeed, vLLM), exported by the workers: they are engine
// scheduling and KV-cache state, never host metrics, wherever they were
// scraped.
var engineFamilyPrefixes = []string{"sglang:", "tokenspeed:", "vllm:", "sglang_", "tokenspeed_", "vllm_"}

func isEngineFamily(n string) bool { return hasAnyPrefix(n, engineFamilyPrefixes...) }
