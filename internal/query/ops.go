package query

import (
	"math"
	"slices"
)

// Op is one operation of the protocol, declared once in the table below:
// the CLI's kinds, flags and help, the wasm dispatch and the page's bounds
// are all read from it.
type Op struct {
	Name string `json:"name"`
	Help string `json:"help"`
	// Internal ops serve the page (or the CLI's own plumbing); they are
	// left out of `dsight query --help` but stay callable.
	Internal bool `json:"internal,omitempty"`
	// Binary ops answer in bytes (see Engine.AppendAnswer), not JSON.
	Binary bool  `json:"binary,omitempty"`
	Args   []Arg `json:"args"`

	run      func(e *Engine, a Args) (any, error)
	appendTo func(e *Engine, dst []byte, a Args) ([]byte, error)
}

// MaxLimit bounds every list answer.
const MaxLimit = 1000

// allArgs declares every argument once, with the Args field it fills; an
// op takes a subset, sometimes with its own help, default or bounds.
var allArgs = []Arg{
	{Name: "from", Type: Number, Help: "range start, seconds from origin (default 0)", field: func(a *Args) any { return &a.From }},
	{Name: "to", Type: Number, Help: "range end, seconds from origin (default: the run's end)", field: func(a *Args) any { return &a.To }},
	{Name: "id", Type: String, Help: "request id", field: func(a *Args) any { return &a.ID }},
	{Name: "session", Type: String, Help: "keep the requests of this session", field: func(a *Args) any { return &a.Session }},
	{Name: "agent", Type: String, Help: "keep the requests of this agent", field: func(a *Args) any { return &a.Agent }},
	{Name: "worker", Type: String, Help: "keep the requests a server worker served", field: func(a *Args) any { return &a.Worker }},
	{Name: "min_ttft_ms", Type: Number, Min: bound(0), Help: "keep requests whose TTFT is at least this (unknown TTFT counts as 0)", field: func(a *Args) any { return &a.MinTTFTms }},
	{Name: "search", Type: String, Help: "case-insensitive search over request identities", field: func(a *Args) any { return &a.Search }},
	{Name: "sort", Type: String, Enum: []string{"start", "ttft", "latency", "count"}, Default: "start", Help: "session order: start, ttft (longest first), latency (longest request first) or count (most requests first)", field: func(a *Args) any { return &a.Sort }},
	{Name: "offset", Type: Integer, Min: bound(0), Max: bound(math.MaxInt32), Default: 0, Help: "items to skip", field: func(a *Args) any { return &a.Offset }},
	{Name: "limit", Type: Integer, Min: bound(0), Max: bound(MaxLimit), Default: 100, Help: "items to return (0 returns only the total)", field: func(a *Args) any { return &a.Limit }},
	{Name: "bins", Type: Integer, Min: bound(1), Max: bound(10000), Default: DefaultOverviewBins, Help: "overview bins", field: func(a *Args) any { return &a.Bins }},
	{Name: "pixels", Type: Integer, Min: bound(0), Max: bound(MaxPlotPixels), Help: "with points: a plot this wide (every row, or each bucket's recorded min and max)", field: func(a *Args) any { return &a.Pixels }},
	{Name: "name", Type: String, Help: "metric family name (exact)", field: func(a *Args) any { return &a.Name }},
	{Name: "host", Type: String, Help: "metric host", field: func(a *Args) any { return &a.Host }},
	{Name: "gpu", Type: String, Help: "metric GPU (compared as a string)", field: func(a *Args) any { return &a.GPU }},
	{Name: "rank", Type: String, Help: "metric rank (compared as a string)", field: func(a *Args) any { return &a.Rank }},
	{Name: "role", Type: String, Help: "keep the workers of this role (prefill, decode, agg, frontend)", field: func(a *Args) any { return &a.Role }},
	{Name: "points", Type: Boolean, Help: "include metric points (up to 1000 per series)", field: func(a *Args) any { return &a.Points }},
	{Name: "expanded", Type: Strings, Help: "sessions whose agents and request bars to include", field: func(a *Args) any { return &a.Expanded }},
	{Name: "focus_page", Type: Boolean, Help: "answer the page of limit sessions that holds the session of id (offset is used only when that session is not in the list)", field: func(a *Args) any { return &a.FocusPage }},
	{Name: "series", Type: Integers, Help: "metric series ids, in drawing order", field: func(a *Args) any { return &a.Series }},
	{Name: "ids", Type: Integers, Help: "metric series ids (e.g. the visible ones)", field: func(a *Args) any { return &a.IDs }},
	{Name: "max_bytes", Type: Integer, Min: bound(0), Max: bound(1 << 53), Help: "metric cache budget in decoded bytes", field: func(a *Args) any { return &a.MaxBytes }},
	{Name: "profile", Type: Integer, Min: bound(0), Max: bound(math.MaxInt32), Help: "Nsight profile id", field: func(a *Args) any { return &a.Profile }},
	{Name: "max_points", Type: Integer, Min: bound(0), Max: bound(1 << 53), Help: "metric cache budget in exact rows", field: func(a *Args) any { return &a.MaxPoints }},
}

// arg returns the declaration of name, changed by edit when given.
func arg(name string, edit ...func(*Arg)) Arg {
	for _, g := range allArgs {
		if g.Name == name {
			for _, f := range edit {
				f(&g)
			}
			return g
		}
	}
	panic("query: undeclared argument " + name)
}

func args(names ...string) []Arg {
	out := make([]Arg, len(names))
	for k, n := range names {
		out[k] = arg(n)
	}
	return out
}

func limitDefault(n int) func(*Arg) { return func(g *Arg) { g.Default = n } }

func help(h string) func(*Arg) { return func(g *Arg) { g.Help = h } }

// requestID is the id of the one request an op is about; the CLI also
// spells it --request.
func requestID(g *Arg) { g.Required, g.Alias = true, "request" }

var requestFilters = []string{"from", "to", "session", "agent", "worker", "min_ttft_ms", "search"}

// metricFilters are the series filters of the metric ops.
func metricFilters() []Arg {
	return []Arg{arg("worker", help("metric worker")), arg("host"), arg("gpu"), arg("rank"), arg("name")}
}

// profileFilters select Nsight profiles.
func profileFilters() []Arg {
	return []Arg{arg("profile"), arg("worker", help("profile worker (\"frontend\", \"decode-0\", \"unmapped\")")), arg("rank", help("profile distributed rank (compared as a string)"))}
}

func withArgs(base []string, extra ...Arg) []Arg { return append(args(base...), extra...) }

var table []*Op

func init() {
	table = []*Op{
		{Name: "summary", Help: "report metadata, audit counters, capabilities and counts",
			run: func(e *Engine, a Args) (any, error) { return e.Summary(), nil }},
		{Name: "requests", Help: "requests overlapping the range that pass the filters, in start order",
			Args: withArgs(requestFilters, arg("offset"), arg("limit")),
			run:  func(e *Engine, a Args) (any, error) { return e.requestPage(a) }},
		{Name: "request", Help: "one request with its server records and lifecycle",
			Args: []Arg{arg("id", requestID)},
			run:  func(e *Engine, a Args) (any, error) { return e.request(a.ID) }},
		{Name: "lifecycle", Help: "one request's cumulative-milestone lifecycle",
			Args: []Arg{arg("id", requestID)},
			run:  func(e *Engine, a Args) (any, error) { return e.lifecycle(a.ID) }},
		{Name: "server_spans", Help: "server spans no request owns that overlap the range",
			Args: args("from", "to", "offset", "limit"),
			run:  func(e *Engine, a Args) (any, error) { return e.serverSpans(a) }},
		{Name: "server_lanes", Help: "the page's server-activity lanes: every unowned span in the range packed into sub-lanes per role and host, or per lane a density when the range holds more than can be drawn", Internal: true,
			Args: []Arg{arg("from"), arg("to"), arg("bins"), arg("pixels", help("the lanes' width: a span is packed at least 2 px wide, as drawn"))},
			run:  func(e *Engine, a Args) (any, error) { return e.serverLanes(a) }},
		{Name: "iterations", Help: "TRT-LLM iteration records and TokenSpeed batch snapshots overlapping the range, plus the count of unaligned ones",
			Args: []Arg{arg("from"), arg("to"), arg("worker", help("keep the observations of this worker, e.g. decode-0")),
				arg("rank", help("keep the observations of this rank, in its recorded rank_kind (TRT-LLM global rank, TokenSpeed attention TP rank)")),
				arg("offset"), arg("limit")},
			run: func(e *Engine, a Args) (any, error) { return e.iterations(a) }},
		{Name: "sessions", Help: "sessions with requests that overlap the range and pass the filters",
			Args: withArgs(requestFilters, arg("sort"), arg("offset"), arg("limit")),
			run:  func(e *Engine, a Args) (any, error) { return e.sessions(a) }},
		{Name: "workers", Help: "server workers: role, engine, hosts, process epochs, log files, rank scopes and the evidence that names each",
			Args: []Arg{arg("worker", help("this worker only (unknown: not_found)")), arg("role"), arg("offset"), arg("limit")},
			run:  func(e *Engine, a Args) (any, error) { return e.listWorkers(a) }},
		{Name: "timeline", Help: "one page of sessions with request bars for the expanded ones", Internal: true,
			Args: withArgs(requestFilters, arg("sort"), arg("id", help("request whose session position focus_index reports")), arg("expanded"), arg("focus_page"), arg("offset"), arg("limit", limitDefault(7))),
			run:  func(e *Engine, a Args) (any, error) { return e.timeline(a) }},
		{Name: "overview", Help: "histogram of request starts over the run", Internal: true,
			Args: args("bins"),
			run:  func(e *Engine, a Args) (any, error) { return e.overview(a.Bins) }},
		{Name: "window_overview", Help: "the overview's histogram over the range (the page's aligned overview track)", Internal: true,
			Args: args("from", "to", "bins"),
			run:  func(e *Engine, a Args) (any, error) { return e.windowOverview(a) }},
		{Name: "sources", Help: "the evidence files the report was built from",
			Args: args("offset", "limit"),
			run:  func(e *Engine, a Args) (any, error) { return e.sources(a) }},
		{Name: "source", Help: "one evidence file by id, or null",
			Args: []Arg{arg("id", help("source id (an integer)"), func(g *Arg) { g.Required = true })},
			run:  func(e *Engine, a Args) (any, error) { return e.source(a.ID) }},
		{Name: "default_request", Help: "the request the page opens on", Internal: true,
			run: func(e *Engine, a Args) (any, error) { return e.DefaultRequest(), nil }},
		{Name: "default_metric", Help: "the metric family the page opens on", Internal: true,
			run: func(e *Engine, a Args) (any, error) { return e.DefaultMetric(), nil }},
		{Name: "metric_families", Help: "the metric catalog, in display order",
			run: func(e *Engine, a Args) (any, error) { return e.metricFamilies(), nil }},
		{Name: "metric_series", Help: "metric series metadata, without samples",
			Args: append(metricFilters(), arg("offset"), arg("limit")),
			run:  func(e *Engine, a Args) (any, error) { return e.metricSeries(a) }},
		{Name: "stats", Help: "range statistics, exact at any zoom: requests overlapping the range (counts, latency, TTFT and tokens/s with p50/p90/p99, and the requests at or beyond p90/p95/p99) and metric series (count, min, max, mean, p50/p90/p99)",
			Args: []Arg{arg("from"), arg("to"), arg("name", help("metric family name (exact); default every series")),
				arg("worker", help("keep the requests this server worker served and the metric series of this worker")),
				arg("ids", help("metric series ids (e.g. the visible ones); default every series, or those of name")),
				arg("limit", help("requests listed per percentile row"))},
			run: func(e *Engine, a Args) (any, error) { return e.stats(a) }},
		{Name: "metric_plan", Help: "the metric shards a metrics question needs that are not loaded", Internal: true,
			Args: metricArgs(),
			run:  func(e *Engine, a Args) (any, error) { return e.metricPlan(a) }},
		{Name: "metrics", Help: "per metric series: range statistics, optionally points, carried setting and capacity",
			Args: metricArgs(),
			run:  func(e *Engine, a Args) (any, error) { return e.queryMetrics(a) }},
		{Name: "page_metric_series", Help: "every matching metric series' metadata, labels as an object (the page's listMetricSeries)", Internal: true,
			// The reference answers every series; a limit, when given, is
			// checked like every list's and cuts the list.
			Args: append(metricFilters(), arg("limit", help("series to return (default: every matching series)"), func(g *Arg) { g.Default = nil })),
			run:  func(e *Engine, a Args) (any, error) { return e.pageMetricSeries(a), nil }},
		{Name: "page_metrics", Help: "metrics over every matching series, in the page's shape (queryMetrics)", Internal: true,
			Args: append(append(args("from", "to"), metricFilters()...), arg("points"), arg("pixels")),
			run:  func(e *Engine, a Args) (any, error) { return e.pageMetrics(a) }},
		{Name: "plot", Help: "a chart's plot columns (the bytes of Plot.Encode)", Internal: true, Binary: true,
			Args: []Arg{arg("from"), arg("to"), arg("pixels", help("chart width"), func(g *Arg) { g.Min, g.Required = bound(1), true }), arg("series")},
			appendTo: func(e *Engine, dst []byte, a Args) ([]byte, error) {
				return e.appendPlot(dst, PlotRequest{From: a.From, To: a.To, Pixels: a.Pixels, Series: a.Series})
			}},
		{Name: "perfetto", Help: "the whole report as a Perfetto trace (the bytes of a .pftrace; dsight export perfetto writes it)", Internal: true, Binary: true,
			appendTo: func(e *Engine, dst []byte, a Args) ([]byte, error) { return e.appendPerfetto(dst) }},
		{Name: "metric_cache", Help: "the metric shards the engine holds and its budget; given a budget, sets it first", Internal: true,
			Args: args("max_bytes", "max_points"),
			run:  func(e *Engine, a Args) (any, error) { return e.metricCacheOp(a) }},
		{Name: "profiles", Help: "Nsight profiles: identity, capture, counts, truncation, threads and the overview density",
			Args: append(profileFilters(), arg("offset"), arg("limit")),
			run:  func(e *Engine, a Args) (any, error) { return e.profiles(a) }},
		{Name: "nsys", Help: "exact NVTX ranges overlapping the range, in (start, profile, range) order",
			Args: append(append(args("from", "to"), profileFilters()...), arg("name", help("NVTX name substring (case-insensitive)")), arg("offset"),
				arg("limit", func(g *Arg) { g.Max = bound(MaxNsysLimit) })),
			run: func(e *Engine, a Args) (any, error) { return e.nsys(a) }},
		{Name: "cpu", Help: "CPU hotspots in the range: a symbol counts once per sample (inclusive)",
			Args: append(append(args("from", "to"), profileFilters()...), arg("limit", limitDefault(30), func(g *Arg) { g.Max = bound(MaxCPULimit) })),
			run:  func(e *Engine, a Args) (any, error) { return e.cpu(a) }},
		{Name: "nsys_view", Help: "one profile's Nsight track for a window: its density, or below the exact threshold its ranges in thread lanes (bytes)", Internal: true, Binary: true,
			Args:     append(args("from", "to"), profileFilters()...),
			appendTo: func(e *Engine, dst []byte, a Args) ([]byte, error) { return e.appendNsysView(dst, a) }},
		{Name: "nsys_prefetch", Help: "one profile's detail shards the engine does not hold, nearest the range first, for the page's idle prefetch", Internal: true,
			Args: append(args("from", "to", "limit"), profileFilters()...),
			run:  func(e *Engine, a Args) (any, error) { return e.nsysPrefetch(a) }},
		{Name: "detail_cache", Help: "the Nsight detail shards the engine holds and its budget; given a budget, sets it first", Internal: true,
			Args: []Arg{arg("max_bytes", help("detail cache budget in decoded bytes"))},
			run:  func(e *Engine, a Args) (any, error) { return e.detailCacheOp(a) }},
		{Name: "detail_spare", Help: "marks a detail shard the idle prefetch gave as spare: the first to go when the cache needs room", Internal: true,
			Args: []Arg{arg("id", help("detail shard id"))},
			run:  func(e *Engine, a Args) (any, error) { return e.detailSpare(a) }},
		{Name: "ops", Help: "this table: every operation with its arguments", Internal: true,
			run: func(e *Engine, a Args) (any, error) { return table, nil }},
	}
}

func metricArgs() []Arg {
	return append(append(args("from", "to"), metricFilters()...), arg("points"), arg("pixels"), arg("offset"), arg("limit"))
}

// Table lists every operation in documentation order. It is shared:
// callers must not change it.
func Table() []*Op { return table }

// Lookup finds an operation by name.
func Lookup(name string) *Op {
	i := slices.IndexFunc(table, func(op *Op) bool { return op.Name == name })
	if i < 0 {
		return nil
	}
	return table[i]
}

// Names lists the operation names, public ones only unless internal.
func Names(internal bool) []string {
	var out []string
	for _, op := range table {
		if internal || !op.Internal {
			out = append(out, op.Name)
		}
	}
	return out
}
