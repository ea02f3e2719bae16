package query

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dsight/dsight/internal/model"
)

// Summary is the "summary" answer and the heart of describe().
type Summary struct {
	Schema       string       `json:"schema"`
	Meta         MetaItem     `json:"meta"`
	Audit        model.Audit  `json:"audit"`
	Capabilities Capabilities `json:"capabilities"`
	Counts       Counts       `json:"counts"`
}

// MetaItem is the run description.
type MetaItem struct {
	Job               string   `json:"job"`
	OriginNS          string   `json:"origin_ns"`
	StartUTC          string   `json:"start_utc"`
	Duration          float64  `json:"duration"`
	SourceRoot        string   `json:"source_root"`
	Phase             string   `json:"phase"`
	TimeBasis         string   `json:"time_basis"`
	ClientKind        string   `json:"client_kind"`
	OTelEnabled       bool     `json:"otel_enabled"`
	SessionKey        string   `json:"session_key"`
	Clock             string   `json:"clock"`
	IterationTimezone *string  `json:"iteration_timezone"`
	Limitations       []string `json:"limitations"`
	Warnings          []string `json:"warnings"`
}

// Capabilities says which views have usable evidence.
type Capabilities struct {
	Requests         bool `json:"requests"`
	RequestBreakdown bool `json:"request_breakdown"`
	ServerActivity   bool `json:"server_activity"`
	// Metrics means a recorded metric series exists (reference §3.9);
	// series derived at build time from the requests do not count here
	// but in DerivedMetrics, so a client-only run still says it holds no
	// recorded metrics.
	Metrics         bool `json:"metrics"`
	DerivedMetrics  bool `json:"derived_metrics"`
	WorkerMetrics   bool `json:"worker_metrics"`
	HardwareMetrics bool `json:"hardware_metrics"`
	NVTX            bool `json:"nvtx"`
	CPUSamples      bool `json:"cpu_samples"`
	Nsight          bool `json:"nsight"`
	Iterations      bool `json:"iterations"`
}

// Counts sizes each collection.
type Counts struct {
	Requests   int `json:"requests"`
	Sessions   int `json:"sessions"`
	Workers    int `json:"workers"`
	Metrics    int `json:"metrics"`
	Profiles   int `json:"profiles"`
	Iterations int `json:"iterations"`
}

// Summary answers the "summary" kind.
func (e *Engine) Summary() Summary {
	m := e.c.Meta
	parts := e.summaryParts()
	audit := make(model.Audit, len(e.c.Audit))
	for k, v := range e.c.Audit {
		audit[k] = v
	}
	return Summary{
		Schema: model.Schema,
		Meta: MetaItem{
			Job: m.Job, OriginNS: strconv.FormatInt(m.OriginNS, 10),
			StartUTC:   time.Unix(0, m.OriginNS).UTC().Format(time.RFC3339Nano),
			Duration:   e.durationS,
			SourceRoot: m.SourceRoot, Phase: m.Phase, TimeBasis: m.TimeBasis, ClientKind: m.ClientKind, OTelEnabled: m.OTelEnabled,
			IterationTimezone: optString(m.IterationTimezone),
			SessionKey:        "root correlation id, else correlation id, else request id",
			Clock:             "client epoch nanoseconds (UTC); no cross-host clock correction",
			Limitations:       nonNil(m.Limitations), Warnings: nonNil(m.Warnings),
		},
		Audit:        audit,
		Capabilities: parts.capabilities,
		Counts:       Counts{Requests: e.r.N, Sessions: len(e.c.Sessions.ID), Workers: parts.workers, Metrics: len(e.c.Metrics), Iterations: e.c.Batch.N, Profiles: len(e.c.Profiles)},
	}
}

// SourceItem is one evidence file.
type SourceItem struct {
	ID     int    `json:"id"`
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

func sourceItem(s model.Source) SourceItem {
	return SourceItem{ID: s.ID, Path: s.Path, Kind: s.Kind, Bytes: s.Bytes, SHA256: s.SHA256}
}

// sources answers the "sources" kind: the source manifest, paginated.
func (e *Engine) sources(a Args) (list[SourceItem], error) {
	offset, limit := page(a)
	out := list[SourceItem]{Total: len(e.c.Sources), Offset: offset, Limit: limit, Range: [2]float64{0, e.durationS}, Items: []SourceItem{}}
	for k := offset; k < len(e.c.Sources) && len(out.Items) < limit; k++ {
		out.Items = append(out.Items, sourceItem(e.c.Sources[k]))
	}
	return out, nil
}

// source answers the "source" kind: one source by id, or null.
func (e *Engine) source(id string) (*SourceItem, error) {
	n, err := strconv.Atoi(id)
	if err != nil {
		return nil, badArgs("source id must be an integer; got %q", id)
	}
	i, ok := e.sourceByID[n]
	if !ok {
		return nil, nil
	}
	it := sourceItem(e.c.Sources[i])
	return &it, nil
}

// Overview is a histogram of request starts over the whole run, for the
// overview strip.
type Overview struct {
	Basis      string  `json:"basis"`
	Duration   float64 `json:"duration"`
	BinSeconds float64 `json:"bin_seconds"`
	Counts     []int   `json:"counts"`
	Max        int     `json:"max"`
}

// DefaultOverviewBins matches the overview strip's resolution.
const DefaultOverviewBins = 300

// overview answers the "overview" kind; the op table bounds bins.
func (e *Engine) overview(bins int) (Overview, error) {
	o := Overview{Duration: e.durationS, BinSeconds: e.durationS / float64(bins), Counts: make([]int, bins)}
	// Client request starts when there are any, else server span starts.
	starts := e.r.Start
	switch {
	case e.r.N > 0:
		o.Basis = "request starts"
	case len(e.c.ServerSpans.Start) > 0:
		o.Basis = "server span starts"
		starts = e.c.ServerSpans.Start
	}
	scale := float64(bins) / float64(e.c.Meta.DurationNS)
	for _, start := range starts {
		b := min(max(int(float64(start)*scale), 0), bins-1)
		o.Counts[b]++
	}
	for _, n := range o.Counts {
		o.Max = max(o.Max, n)
	}
	return o, nil
}

// defaultRank is the TTFT rank (descending) of the request the page opens
// on: the slowest, so the page starts where a slow run needs looking at
// (rank 20, the reference's choice, hid the slow requests from new users).
const defaultRank = 0

// DefaultRequest picks the request the page opens on: rank
// min(defaultRank, n-1) by TTFT, descending, among requests with joined
// spans, workers and a first token (the ones with the most to show); else
// among requests with a first token; else the first request; else none.
// It keeps only the top ranks instead of sorting every request.
func (e *Engine) DefaultRequest() *string {
	r := e.r
	traced := func(i int) bool {
		k := e.serverRow[i]
		return k >= 0 && e.c.Server.SpanCount[k] > 0 && e.c.Server.Workers[k] != ""
	}
	for _, eligible := range []func(int) bool{traced, func(int) bool { return true }} {
		if id := e.slowRank(eligible); id != nil {
			return id
		}
	}
	if r.N > 0 {
		return &r.ID[0]
	}
	return nil
}

// slowRank returns the request at TTFT rank min(defaultRank, n-1),
// descending, among eligible requests with a first token.
func (e *Engine) slowRank(eligible func(int) bool) *string {
	r := e.r
	var top []int // indexes, TTFT descending, at most defaultRank+1
	slower := func(a, b int) bool { return r.TTFT.V[a] > r.TTFT.V[b] || r.TTFT.V[a] == r.TTFT.V[b] && a < b }
	for i := range r.N {
		if !valid(r.TTFT.Valid, i) || !valid(r.First.Valid, i) || !eligible(i) {
			continue
		}
		if len(top) == defaultRank+1 && !slower(i, top[len(top)-1]) {
			continue
		}
		k := sort.Search(len(top), func(k int) bool { return slower(i, top[k]) })
		if len(top) < defaultRank+1 {
			top = append(top, 0)
		}
		copy(top[k+1:], top[k:len(top)-1])
		top[k] = i
	}
	if len(top) == 0 {
		return nil
	}
	return &r.ID[top[len(top)-1]]
}

func (e *Engine) capabilities() Capabilities {
	// server_activity: an independent (unjoined) server span exists, so
	// that server_spans answers something (reference §3.9).
	c := Capabilities{Requests: e.r.N > 0, ServerActivity: len(e.c.ServerSpans.Start) > 0}
	for k := range e.c.Server.Request {
		c.RequestBreakdown = c.RequestBreakdown || e.c.Server.LifecycleAvailable[k] == 1
	}
	c.Iterations = e.c.Batch.N > 0
	for i := range e.c.MetricFamilies {
		f := &e.c.MetricFamilies[i]
		c.Metrics = c.Metrics || !f.Derived
		c.DerivedMetrics = c.DerivedMetrics || f.Derived
	}
	for i := range e.c.Metrics {
		m := &e.c.Metrics[i]
		if m.Derived {
			continue
		}
		c.Metrics = c.Metrics || m.Samples > 0
		c.WorkerMetrics = c.WorkerMetrics || m.Samples > 0 && m.Component == "Workers"
		c.HardwareMetrics = c.HardwareMetrics || m.Component == "GPU" || m.Component == "Host"
	}
	for _, p := range e.c.Profiles {
		c.NVTX = c.NVTX || p.Counts.Kept > 0
		c.CPUSamples = c.CPUSamples || p.CPU != nil && p.CPU.Samples > 0
	}
	c.Nsight = c.NVTX || c.CPUSamples
	return c
}

// workers lists the workers that served any request, sorted.
func (e *Engine) workers() []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range e.c.Server.Workers {
		if list == "" {
			continue
		}
		// Walked in place: splitting each of 100,000 lists was an
		// allocation a request, for a summary that keeps a few names.
		for w := range strings.SplitSeq(list, "\n") {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	sort.Strings(out)
	return out
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
