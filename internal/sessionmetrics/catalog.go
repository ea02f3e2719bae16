package sessionmetrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/shard"
)

// Component is the metric selector's component of every session family.
const Component = "Session"

// Family names, in display order.
const (
	famInFlight    = "session_in_flight_requests"
	famOutcomes    = "session_errors_per_s"
	famGeneration  = "session_generation_tokens_per_s"
	famPrefill     = "session_prefill_tokens_per_s"
	famAvgSize     = "session_avg_request_tokens"
	famMaxSize     = "session_max_request_tokens"
	famLatency     = "session_request_latency"
	famTTFT        = "session_ttft"
	famCompleted   = "session_completed_requests"
	famTotalTokens = "session_total_tokens"
)

// Definition is what a session family is and how it is computed, in words
// the page shows on hover and the CLI lists.
type Definition struct {
	Name, Group, Title, Unit string
	GroupOrder               int
	Description              string
}

// estimate is the note every throughput definition carries.
const estimate = " Because of this, these numbers are an estimate."

// Definitions lists the session families in display order. Group names
// follow the counter groups a Perfetto export shows.
var Definitions = []Definition{
	{famInFlight, "Concurrency", "In-flight requests", "requests", 0,
		"Client requests running at each moment, from their recorded start to their end (a zero-length request never counts). Split by recorded phase when more than one is recorded, and by the server worker that served them where server evidence joined (client times). Exact: one row at every change."},
	{famOutcomes, "Concurrency", "Errors and cancellations", "requests/s", 0,
		"Requests that ended with status error, or cancelled, per second, counted in the 1 s interval of their end. Every interval of the run has a count."},
	{famGeneration, "Throughput", "Generation tokens/s", "tok/s", 1,
		"Output tokens per second per 1 s interval. Each request's recorded output tokens are spread evenly over its active time — first token → end where the first token is known, else start → end (shown as its own series) — instead of being credited all at completion, so a long request reads as a steady rate over its lifetime." + estimate + " Requests without a recorded output token count add nothing."},
	{famPrefill, "Throughput", "Prefill (prompt) tokens/s", "tok/s", 1,
		"Prompt tokens per second per 1 s interval, each request's recorded input tokens credited to the interval of its start, because prefill is a burst of work at the very beginning of a request." + estimate},
	{famAvgSize, "Per Request", "Average tokens per request", "tokens", 2,
		"Cumulative average prompt and generation tokens over the completed requests so far (those that recorded the count), sampled at the end of each 1 s interval in which one completed; it settles toward the run-wide average."},
	{famMaxSize, "Per Request", "Largest request", "tokens", 2,
		"Largest single prompt and generation among the requests that completed in each 1 s interval (outliers); null for an interval in which none did."},
	{famLatency, "Latency", "Request latency percentiles", "s", 3,
		"Nearest-rank p50/p90/p99 of end − start over the completed requests that ended in each interval (1 s, and 10 s and 60 s for zoomed-out views): the value at rank ⌈p·n⌉ of that interval's own requests, never an average of percentiles; null for an interval without a request."},
	{famTTFT, "Latency", "TTFT percentiles", "s", 3,
		"Nearest-rank p50/p90/p99 of the recorded time to first token over the completed requests whose first token fell in each interval (1 s, 10 s, 60 s), from that interval's own requests; an unknown TTFT counts nowhere (never as zero); null for an interval without one."},
	{famCompleted, "Totals", "Completed requests", "requests", 4,
		"Running total of requests that completed (status completed), sampled at the end of each 1 s interval in which one did."},
	{famTotalTokens, "Totals", "Total tokens", "tokens", 4,
		"Running totals of the generated and prompt tokens the completed requests recorded, sampled at the end of each 1 s interval in which they changed."},
}

// Quality is the quality note of every session family.
const Quality = "Derived at build time from the client export (warmup excluded); not recorded by any source."

// Derive computes the session metrics of d's requests: families in display
// order and their series (ids from 0, in family order), each summarized as
// a report stores it. A dataset without a kept request has none.
func Derive(d *model.Dataset) ([]model.MetricFamily, []model.MetricSeries, error) {
	rs := &reqs{rows: make([]req, 0, len(d.Requests)), roles: workerRoles(d)}
	srcSet := map[int]bool{}
	for i := range d.Requests {
		if r := &d.Requests[i]; !Excluded(r) {
			rs.add(r)
			srcSet[r.Evidence.Source] = true
		}
	}
	if len(rs.rows) == 0 {
		return nil, nil, nil
	}
	sources := make([]int, 0, len(srcSet))
	for s := range srcSet {
		sources = append(sources, s)
	}
	slices.Sort(sources)
	all := deriveRows(rs, d.Meta.DurationNS)
	var fams []model.MetricFamily
	var out []model.MetricSeries
	for order, def := range Definitions {
		f := model.MetricFamily{Name: def.Name, Component: Component, Group: def.Group, GroupOrder: def.GroupOrder, Title: def.Title,
			Unit: def.Unit, Description: def.Description, Quality: Quality, Order: order, ValueKind: "stored",
			Endpoints: []string{}, SourceKind: model.SourceDerived, Generator: "sessionmetrics", Temporal: "setting", Derived: true}
		for _, s := range all {
			if s.family != def.Name {
				continue
			}
			m, err := summarize(&s, &def, len(out), sources)
			if err != nil {
				return nil, nil, err
			}
			f.SeriesCount++
			f.Samples += m.Samples
			out = append(out, m)
		}
		if def.Name == famInFlight {
			if keys, within := stackKeys(rs); len(keys) > 0 {
				f.StackBy, f.StackWithin = keys, within
			}
		}
		if f.SeriesCount > 0 {
			fams = append(fams, f)
		}
	}
	return fams, out, nil
}

// summarize builds one series' summary and metadata.
func summarize(s *series, def *Definition, id int, sources []int) (model.MetricSeries, error) {
	points := int64(len(s.points))
	if s.rows != nil {
		points = s.rowCap
	}
	b, err := pyramid.NewBuilder(pyramid.Options{Temporal: pyramid.Setting, Points: points})
	if err != nil {
		return model.MetricSeries{}, err
	}
	var samples int64
	var addErr error
	s.each(func(p point) {
		null := p.Null || math.IsNaN(p.V) || math.IsInf(p.V, 0)
		if err := b.Add(p.T, p.V, null); err != nil && addErr == nil {
			addErr = fmt.Errorf("%s %s: %w", s.family, s.label, err)
		}
		if !null {
			samples++
		}
	})
	if addErr != nil {
		return model.MetricSeries{}, addErr
	}
	p := b.Finish()
	raw, err := p.EncodeShard()
	if err != nil {
		return model.MetricSeries{}, fmt.Errorf("%s %s: %w", s.family, s.label, err)
	}
	gz, err := shard.CompressSummary(raw)
	if err != nil {
		return model.MetricSeries{}, err
	}
	labels := s.labels
	if labels == nil {
		labels = []model.MetricLabel{}
	}
	m := model.MetricSeries{ID: id, Name: s.family, Label: def.Title + " · " + s.label, Unit: def.Unit, ValueKind: "stored",
		Component: Component, Group: def.Group, Description: def.Description, RawName: s.family, Endpoint: model.SourceDerived,
		Labels: labels, SourceKind: model.SourceDerived, Generator: "sessionmetrics", Temporal: "setting",
		SourceIDs: sources, Samples: samples, Rows: p.Rows(), Derived: true,
		Summary: &model.MetricSummary{Payload: model.InMemory(gz), DecodedBytes: len(raw), MetricBounds: bounds(p)}}
	if s.resolutionNS > 0 {
		r := float64(s.resolutionNS) / 1e9
		m.TimeResolutionS = &r
	}
	return m, nil
}

// bounds is the chunk count and the time span of a summary's rows.
func bounds(p *pyramid.Pyramid) model.MetricBounds {
	first, last, _ := p.RowSpan()
	return model.MetricBounds{Chunks: p.ChunkCount(), FirstNS: first, LastNS: last}
}

func pName(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

func intervalName(w int64) string {
	if w%60e9 == 0 {
		return strconv.FormatInt(w/60e9, 10) + " min"
	}
	return strconv.FormatFloat(float64(w)/1e9, 'f', -1, 64) + " s"
}

func percentileLabel(p float64, w int64) string {
	return pName(p) + " · " + intervalName(w) + " intervals"
}
