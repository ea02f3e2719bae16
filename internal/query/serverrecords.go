package query

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
)

// The shapes of server evidence in answers: a request's spans, engine id
// rows, worker bindings and derived lifecycle, and the spans no request
// owns. The report stores typed evidence (internal/catalog's evidence
// chunks); these are rendered from it when asked, so every surface shows
// the same bytes.

// frame says how evidence is rendered: times in seconds relative to
// OriginNS, evidence paths resolved to registered source ids.
type frame struct {
	originNS int64
	// sources maps an evidence path, as the parsers recorded it, to its
	// source id. An unregistered path renders a null source.
	sources map[string]int
}

// seconds renders an absolute epoch-nanosecond time relative to the
// origin. Dividing the exact integer difference once gives the double
// nearest to the true value, so nine decimals round-trip.
func (f frame) seconds(ns int64) float64 { return float64(ns-f.originNS) / 1e9 }

func (f frame) optSeconds(ns *int64) *float64 {
	if ns == nil {
		return nil
	}
	s := f.seconds(*ns)
	return &s
}

// EvidenceRecord points at the line (and, for OTel, the span ordinal within
// the line's record) a value was read from.
type EvidenceRecord struct {
	Source  *int   `json:"source"`
	Path    string `json:"path"`
	Line    int64  `json:"line"`
	Ordinal *int   `json:"ordinal,omitempty"`
}

func (f frame) evidence(path string, line int64, ordinal *int) EvidenceRecord {
	ev := EvidenceRecord{Path: path, Line: line, Ordinal: ordinal}
	if id, ok := f.sources[path]; ok {
		ev.Source = &id
	}
	return ev
}

func (f frame) spanEvidence(ref model.SpanRef) EvidenceRecord {
	ordinal := ref.Ordinal
	return f.evidence(ref.Path, ref.Line, &ordinal)
}

func (f frame) lineEvidence(ref model.LineRef) EvidenceRecord {
	return f.evidence(ref.Path, ref.Line, nil)
}

func (f frame) lifecycleEvidence(ev lifecycle.Evidence) EvidenceRecord {
	return f.evidence(ev.Path, ev.Line, ev.Ordinal)
}

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
	Host           *string        `json:"host"`
	HostRecorded   bool           `json:"host_recorded"`
	Collector      *string        `json:"collector"`
	Process        *string        `json:"process"`
	Request        *string        `json:"request"`
	Operation      *string        `json:"operation"`
	Service        string         `json:"service"`
	Evidence       EvidenceRecord `json:"evidence"`
	RawStartNS     string         `json:"raw_start_ns"`
	RawEndNS       string         `json:"raw_end_ns"`
	Routing        *Routing       `json:"routing"`
	Outcome        *string        `json:"outcome"`
	SessionSource  *string        `json:"session_source"`
	Join           *string        `json:"join"`
	Worker         *string        `json:"worker"`
	WorkerBasis    *string        `json:"worker_basis"`
	RoutingContext *RoutingRecord `json:"routing_context,omitempty"`
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

// RoutingRecord is a routing context as the contract shows it.
type RoutingRecord struct {
	Phase         string         `json:"phase"`
	RouteSpanID   string         `json:"route_span_id"`
	RouteEvidence EvidenceRecord `json:"route_evidence"`
	Basis         string         `json:"basis"`
}

// ServerSpanRecord is a span with its activity label, kind and
// description, as queryServerSpans lists the spans no request owns.
type ServerSpanRecord struct {
	SpanRecord
	Label       string `json:"label"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
}

// spanRecord renders a joined span.
func (f frame) spanRecord(s *model.JoinedSpan) SpanRecord {
	sp := s.Span
	rec := SpanRecord{
		ID: sp.SpanID, Trace: sp.TraceID, Parent: nonEmpty(sp.ParentSpanID), Name: sp.Name,
		Start: f.seconds(sp.StartNS), End: f.seconds(sp.EndNS), Role: sp.Role(),
		Process:       attrString(sp, "dynamo.process.epoch"),
		Request:       attrString(sp, "dynamo.request.id"),
		Operation:     attrString(sp, "dynamo.operation.id"),
		Service:       "unknown",
		Evidence:      f.spanEvidence(sp.Ref),
		RawStartNS:    strconv.FormatInt(sp.StartNS, 10),
		RawEndNS:      strconv.FormatInt(sp.EndNS, 10),
		Outcome:       attrString(sp, "dynamo.request.outcome"),
		SessionSource: attrString(sp, "dynamo.session.source"),
		Join:          nonEmpty(s.Join),
		Worker:        nonEmpty(s.Worker),
		WorkerBasis:   nonEmpty(s.WorkerBasis),
	}
	if service, ok := sp.Resource.ServiceName(); ok {
		rec.Service = service
	}
	if host := lifecycle.RecordedHost(sp); host != nil {
		rec.Host, rec.HostRecorded = host, true
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
			Phase: rc.Phase, RouteSpanID: rc.RouteSpanID, RouteEvidence: f.spanEvidence(rc.RouteRef), Basis: rc.Basis,
		}
	}
	return rec
}

// serverSpanRecord renders a span no request owns, with its activity label.
func (f frame) serverSpanRecord(s *model.JoinedSpan) ServerSpanRecord {
	label, kind, _ := lifecycle.ActivityFor(s.Name, s.Role(), "")
	return ServerSpanRecord{SpanRecord: f.spanRecord(s), Label: label, Kind: kind, Description: lifecycle.ActivityDescription(s.Name)}
}

// BindingRecord is a worker binding as the contract shows it.
type BindingRecord struct {
	Worker    string         `json:"worker"`
	Host      string         `json:"host"`
	Role      string         `json:"role"`
	ServerID  string         `json:"server_id"`
	Process   *string        `json:"process"`
	Evidence  EvidenceRecord `json:"evidence"`
	Basis     string         `json:"basis"`
	Ambiguous bool           `json:"ambiguous"`
}

// EngineRecord is an engine entry as the contract shows it.
type EngineRecord struct {
	Worker            string         `json:"worker"`
	Host              string         `json:"host"`
	Role              string         `json:"role"`
	ClientID          string         `json:"client_id"`
	DisaggID          *string        `json:"disagg_id"`
	ServerID          string         `json:"server_id"`
	Process           *string        `json:"process"`
	Evidence          EvidenceRecord `json:"evidence"`
	ObservedAt        *float64       `json:"observed_at,omitempty"`
	IdentityAmbiguous bool           `json:"identity_ambiguous"`
}

// ServerDetail is a request's joined server evidence as the contract shows
// it: the bridge lines, the records and the derived lifecycle.
type ServerDetail struct {
	BridgeEvidence []EvidenceRecord `json:"bridge_evidence"`
	Spans          []SpanRecord     `json:"spans"`
	Engine         []EngineRecord   `json:"engine"`
	WorkerBindings []BindingRecord  `json:"worker_bindings"`
	Lifecycle      LifecycleRecord  `json:"lifecycle"`
}

// serverDetail renders everything an answer shows about a request's server
// side.
func (f frame) serverDetail(r *model.RequestEvidence) ServerDetail {
	d := ServerDetail{
		BridgeEvidence: make([]EvidenceRecord, len(r.BridgeEvidence)),
		Spans:          make([]SpanRecord, 0, len(r.Spans)),
		Engine:         make([]EngineRecord, 0, len(r.Engine)),
		WorkerBindings: make([]BindingRecord, 0, len(r.Bindings)),
	}
	for k, ref := range r.BridgeEvidence {
		d.BridgeEvidence[k] = f.lineEvidence(ref)
	}
	for k := range r.Spans {
		d.Spans = append(d.Spans, f.spanRecord(&r.Spans[k]))
	}
	for _, e := range r.Engine {
		d.Engine = append(d.Engine, EngineRecord{
			Worker: e.Worker, Host: e.Host, Role: e.Role, ClientID: e.ClientID, DisaggID: e.DisaggID,
			ServerID: e.ServerID, Process: e.Process, Evidence: f.lineEvidence(e.Ref),
			ObservedAt: f.optSeconds(e.ObservedAtNS), IdentityAmbiguous: e.IdentityAmbiguous,
		})
	}
	for _, b := range r.Bindings {
		d.WorkerBindings = append(d.WorkerBindings, BindingRecord{
			Worker: b.Worker, Host: b.Host, Role: b.Role, ServerID: b.ServerID, Process: b.Process,
			Evidence: f.lineEvidence(b.Ref), Basis: b.Basis, Ambiguous: b.Ambiguous,
		})
	}
	d.Lifecycle = f.lifecycle(lifecycle.Derive(r))
	return d
}

func attrString(sp *model.Span, key string) *string {
	if s, ok := sp.Attrs.String(key); ok {
		return &s
	}
	return nil
}

// attrValue returns an attribute's single inner value: a string, an
// integer as its exact decimal string, a finite double, a bool, or the
// OTLP/JSON AnyValue shape for bytes, arrays, lists and non-finite doubles.
func attrValue(sp *model.Span, key string) any {
	v, ok := sp.Attrs.Get(key)
	if !ok {
		return nil
	}
	switch v.Kind() {
	case model.KindString:
		s, _ := v.Str()
		return s
	case model.KindInt:
		n, _ := v.Int()
		return strconv.FormatInt(n, 10)
	case model.KindDouble:
		if d, _ := v.Double(); !math.IsNaN(d) && !math.IsInf(d, 0) {
			return d
		}
	case model.KindBool:
		b, _ := v.Bool()
		return b
	}
	return json.RawMessage(AnyValueJSON(nil, v))
}

// AnyValueJSON appends the OTLP/JSON AnyValue shape of v, so shown evidence
// reads like its source: {"stringValue":"…"}, {"intValue":"12"} (exact, as
// a string), {"doubleValue":1.5} or "NaN"/"Infinity"/"-Infinity",
// {"boolValue":true}, {"bytesValue":"<base64>"},
// {"arrayValue":{"values":[…]}}, {"kvlistValue":{"values":[{"key":…,
// "value":…}]}}, and {} when empty.
func AnyValueJSON(b []byte, v model.Value) []byte {
	switch v.Kind() {
	case model.KindString:
		s, _ := v.Str()
		b = appendQuoted(append(b, `{"stringValue":`...), s)
	case model.KindInt:
		n, _ := v.Int()
		b = append(strconv.AppendInt(append(b, `{"intValue":"`...), n, 10), '"')
	case model.KindDouble:
		b = append(b, `{"doubleValue":`...)
		switch f, _ := v.Double(); {
		case math.IsNaN(f):
			b = append(b, `"NaN"`...)
		case math.IsInf(f, 1):
			b = append(b, `"Infinity"`...)
		case math.IsInf(f, -1):
			b = append(b, `"-Infinity"`...)
		default:
			b = strconv.AppendFloat(b, f, 'g', -1, 64)
		}
	case model.KindBool:
		t, _ := v.Bool()
		b = strconv.AppendBool(append(b, `{"boolValue":`...), t)
	case model.KindBytes:
		raw, _ := v.Bytes()
		b = append(base64.StdEncoding.AppendEncode(append(b, `{"bytesValue":"`...), raw), '"')
	case model.KindArray:
		items, _ := v.Array()
		b = append(b, `{"arrayValue":{"values":[`...)
		for i, it := range items {
			if i > 0 {
				b = append(b, ',')
			}
			b = AnyValueJSON(b, it)
		}
		b = append(b, "]}"...)
	case model.KindKVList:
		kvs, _ := v.KVList()
		b = append(AttributesJSON(append(b, `{"kvlistValue":{"values":`...), kvs), '}')
	default:
		return append(b, "{}"...)
	}
	return append(b, '}')
}

// AttributesJSON appends the OTLP/JSON KeyValue list shape of a, keeping
// order and duplicates.
func AttributesJSON(b []byte, a model.Attributes) []byte {
	b = append(b, '[')
	for i, kv := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(append(b, `{"key":`...), kv.Key)
		b = append(AnyValueJSON(append(b, `,"value":`...), kv.Value), '}')
	}
	return append(b, ']')
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// collectorDir returns <dir> of a path ending in otel/<dir>/traces.jsonl.
func collectorDir(p string) string {
	parts := strings.Split(p, "/")
	n := len(parts)
	if n >= 3 && parts[n-3] == "otel" && parts[n-1] == "traces.jsonl" {
		return parts[n-2]
	}
	return ""
}
