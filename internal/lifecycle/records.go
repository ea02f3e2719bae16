package lifecycle

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/otlp"
)

// Frame says how records are rendered for the report: times in seconds
// relative to OriginNS, evidence paths resolved to registered source ids.
type Frame struct {
	OriginNS int64
	// Sources maps an evidence path, as the parsers recorded it, to its
	// source id. An unregistered path renders a null source.
	Sources map[string]int
}

// Seconds renders an absolute epoch-nanosecond time relative to the
// origin. Dividing the exact integer difference once gives the double
// nearest to the true value, so nine decimals round-trip.
func (f Frame) Seconds(ns int64) float64 { return float64(ns-f.OriginNS) / 1e9 }

func (f Frame) optSeconds(ns *int64) *float64 {
	if ns == nil {
		return nil
	}
	s := f.Seconds(*ns)
	return &s
}

// Evidence points at the line (and, for OTel, the span ordinal within the
// line's record) a value was read from.
type Evidence struct {
	Source  *int   `json:"source"`
	Path    string `json:"path"`
	Line    int64  `json:"line"`
	Ordinal *int   `json:"ordinal,omitempty"`
}

func (f Frame) evidence(path string, line int64) Evidence {
	ev := Evidence{Path: path, Line: line}
	if id, ok := f.Sources[path]; ok {
		ev.Source = &id
	}
	return ev
}

// SpanEvidence renders an OTel span reference.
func (f Frame) SpanEvidence(ref otlp.Ref) Evidence {
	ev := f.evidence(ref.Path, ref.Line)
	ordinal := ref.Ordinal
	ev.Ordinal = &ordinal
	return ev
}

// LineEvidence renders a log line reference.
func (f Frame) LineEvidence(ref dynamolog.Ref) Evidence { return f.evidence(ref.Path, ref.Line) }

// SpanRecord is a server span as the contract shows it.
type SpanRecord struct {
	ID     string  `json:"id"`
	Trace  string  `json:"trace"`
	Parent *string `json:"parent"`
	Name   string  `json:"name"`
	Start  float64 `json:"start"`
	End    float64 `json:"end"`
	Role   string  `json:"role"`
	// Host is the recorded dynamo.instance.id; a collector directory name
	// is kept apart in Collector and is never a host.
	Host           *string         `json:"host"`
	HostRecorded   bool            `json:"host_recorded"`
	Collector      *string         `json:"collector"`
	Process        *string         `json:"process"`
	Request        *string         `json:"request"`
	Operation      *string         `json:"operation"`
	Service        string          `json:"service"`
	Evidence       Evidence        `json:"evidence"`
	RawStartNS     string          `json:"raw_start_ns"`
	RawEndNS       string          `json:"raw_end_ns"`
	Routing        *Routing        `json:"routing"`
	Outcome        *string         `json:"outcome"`
	SessionSource  *string         `json:"session_source"`
	Join           *string         `json:"join"`
	Worker         *string         `json:"worker"`
	WorkerBasis    *string         `json:"worker_basis"`
	RoutingContext *RoutingRecord  `json:"routing_context,omitempty"`
	startNS, endNS int64           // exact times, for ordering and checks
	span           *otlp.Span      // the decoded span, for its attributes
	routing        *RoutingContext // as joined
}

// Routing is what a kv_router.route_request span records about the route,
// each value flattened as OTLP/JSON writes it (an integer stays an exact
// decimal string) and null when absent.
type Routing struct {
	Phase     any `json:"phase"`
	WorkerID  any `json:"worker_id"`
	DPRank    any `json:"dp_rank"`
	RequestID any `json:"request_id"`
	Attempt   any `json:"request.attempt"`
	IsRetry   any `json:"migration.is_retry"`
	Outcome   any `json:"request.outcome"`
}

// RoutingRecord is a RoutingContext as the contract shows it.
type RoutingRecord struct {
	Phase         string   `json:"phase"`
	RouteSpanID   string   `json:"route_span_id"`
	RouteEvidence Evidence `json:"route_evidence"`
	Basis         string   `json:"basis"`
}

// ServerSpan is a span with its activity label, kind and description, as
// queryServerSpans lists the spans no request owns.
type ServerSpan struct {
	SpanRecord
	Label       string `json:"label"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
}

// Record renders a joined span.
func (s *Span) Record(f Frame) SpanRecord {
	sp := s.Span
	rec := SpanRecord{
		ID: sp.SpanID, Trace: sp.TraceID, Parent: nonEmpty(sp.ParentSpanID), Name: sp.Name,
		Start: f.Seconds(sp.StartNS), End: f.Seconds(sp.EndNS), Role: sp.Role(),
		Process:       attrString(sp, "dynamo.process.epoch"),
		Request:       attrString(sp, "dynamo.request.id"),
		Operation:     attrString(sp, "dynamo.operation.id"),
		Service:       "unknown",
		Evidence:      f.SpanEvidence(sp.Ref),
		RawStartNS:    strconv.FormatInt(sp.StartNS, 10),
		RawEndNS:      strconv.FormatInt(sp.EndNS, 10),
		Outcome:       attrString(sp, "dynamo.request.outcome"),
		SessionSource: attrString(sp, "dynamo.session.source"),
		Join:          nonEmpty(s.Join),
		Worker:        nonEmpty(s.Worker),
		WorkerBasis:   nonEmpty(s.WorkerBasis),
		startNS:       sp.StartNS, endNS: sp.EndNS, span: sp, routing: s.Routing,
	}
	if service, ok := sp.Resource.ServiceName(); ok {
		rec.Service = service
	}
	if host, ok := recorded(sp, "dynamo.instance.id"); ok {
		rec.Host, rec.HostRecorded = &host, true
	}
	rec.Collector = nonEmpty(collectorDir(sp.Ref.Path))
	if sp.Name == "kv_router.route_request" {
		rec.Routing = &Routing{
			Phase: attrValue(sp, "phase"), WorkerID: attrValue(sp, "worker_id"), DPRank: attrValue(sp, "dp_rank"),
			RequestID: attrValue(sp, "request_id"), Attempt: attrValue(sp, "request.attempt"),
			IsRetry: attrValue(sp, "migration.is_retry"), Outcome: attrValue(sp, "request.outcome"),
		}
	}
	if rc := s.Routing; rc != nil {
		rec.RoutingContext = &RoutingRecord{
			Phase: rc.Phase, RouteSpanID: rc.RouteSpanID, RouteEvidence: f.SpanEvidence(rc.RouteRef), Basis: rc.Basis,
		}
	}
	return rec
}

// ServerSpanRecords renders the spans no request owns, with their activity
// labels.
func (j *Joined) ServerSpanRecords(f Frame) []ServerSpan {
	out := make([]ServerSpan, 0, len(j.ServerSpans))
	for k := range j.ServerSpans {
		s := &j.ServerSpans[k]
		label, kind, _ := otlp.ActivityFor(s.Name, s.Role(), "")
		out = append(out, ServerSpan{
			SpanRecord: s.Record(f), Label: label, Kind: kind, Description: otlp.ActivityDescription(s.Name),
		})
	}
	return out
}

// BindingRecord is a worker binding as the contract shows it.
type BindingRecord struct {
	Worker    string   `json:"worker"`
	Host      string   `json:"host"`
	Role      string   `json:"role"`
	ServerID  string   `json:"server_id"`
	Process   *string  `json:"process"`
	Evidence  Evidence `json:"evidence"`
	Basis     string   `json:"basis"`
	Ambiguous bool     `json:"ambiguous"`
}

// EngineRecord is an engine entry as the contract shows it.
type EngineRecord struct {
	Worker            string   `json:"worker"`
	Host              string   `json:"host"`
	Role              string   `json:"role"`
	ClientID          string   `json:"client_id"`
	DisaggID          *string  `json:"disagg_id"`
	ServerID          string   `json:"server_id"`
	Process           *string  `json:"process"`
	Evidence          Evidence `json:"evidence"`
	ObservedAt        *float64 `json:"observed_at,omitempty"`
	IdentityAmbiguous bool     `json:"identity_ambiguous"`
}

// Records renders a request's joined evidence: its spans, engine entries
// and worker bindings.
func (r *Request) Records(f Frame) (spans []SpanRecord, engine []EngineRecord, bindings []BindingRecord) {
	spans = make([]SpanRecord, 0, len(r.Spans))
	for k := range r.Spans {
		spans = append(spans, r.Spans[k].Record(f))
	}
	engine = make([]EngineRecord, 0, len(r.Engine))
	for _, e := range r.Engine {
		engine = append(engine, EngineRecord{
			Worker: e.Worker, Host: e.Host, Role: e.Role, ClientID: e.ClientID, DisaggID: e.DisaggID,
			ServerID: e.ServerID, Process: e.Process, Evidence: f.LineEvidence(e.Ref),
			ObservedAt: f.optSeconds(e.ObservedAtNS), IdentityAmbiguous: e.IdentityAmbiguous,
		})
	}
	bindings = make([]BindingRecord, 0, len(r.Bindings))
	for _, b := range r.Bindings {
		bindings = append(bindings, BindingRecord{
			Worker: b.Worker, Host: b.Host, Role: b.Role, ServerID: b.ServerID, Process: b.Process,
			Evidence: f.LineEvidence(b.Ref), Basis: b.Basis, Ambiguous: b.Ambiguous,
		})
	}
	return spans, engine, bindings
}

func attrString(sp *otlp.Span, key string) *string {
	if s, ok := sp.Attrs.String(key); ok {
		return &s
	}
	return nil
}

// attrValue returns an attribute's single inner value: a string, an
// integer as its exact decimal string, a finite double, a bool, or the
// AnyValue shape for bytes, arrays, lists and non-finite doubles.
func attrValue(sp *otlp.Span, key string) any {
	v, ok := sp.Attrs.Get(key)
	if !ok {
		return nil
	}
	switch v.Kind() {
	case otlp.KindString:
		s, _ := v.Str()
		return s
	case otlp.KindInt:
		n, _ := v.Int()
		return strconv.FormatInt(n, 10)
	case otlp.KindDouble:
		if d, _ := v.Double(); !math.IsNaN(d) && !math.IsInf(d, 0) {
			return d
		}
	case otlp.KindBool:
		b, _ := v.Bool()
		return b
	}
	return v
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// collectorDir returns <dir> of a path ending in otel/<dir>/traces.jsonl.
func collectorDir(p string) string {
	parts := strings.Split(filepath.ToSlash(p), "/")
	n := len(parts)
	if n >= 3 && parts[n-3] == "otel" && parts[n-1] == "traces.jsonl" {
		return parts[n-2]
	}
	return ""
}

// Detail is a request's joined server evidence as the contract shows it:
// the bridge lines, the records and the derived lifecycle.
type Detail struct {
	BridgeEvidence []Evidence      `json:"bridge_evidence"`
	Spans          []SpanRecord    `json:"spans"`
	Engine         []EngineRecord  `json:"engine"`
	WorkerBindings []BindingRecord `json:"worker_bindings"`
	Lifecycle      Lifecycle       `json:"lifecycle"`
}

// Detail renders everything the report shows about the request's server
// side. Readers of a report call it on a request decoded from a chunk, so
// the page and the CLI show what the build joined.
func (r *Request) Detail(f Frame) Detail {
	d := Detail{BridgeEvidence: make([]Evidence, len(r.BridgeEvidence))}
	for k, ref := range r.BridgeEvidence {
		d.BridgeEvidence[k] = f.LineEvidence(ref)
	}
	d.Spans, d.Engine, d.WorkerBindings = r.Records(f)
	d.Lifecycle = Derive(r, f)
	return d
}
