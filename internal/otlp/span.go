package otlp

import (
	"strconv"
	"strings"
)

// Span is one decoded OTLP span with its resource, scope and evidence.
type Span struct {
	TraceID      string // as recorded (hex in OTLP/JSON; case is kept)
	SpanID       string
	ParentSpanID string // "" for a root span
	TraceState   string
	Name         string
	Kind         SpanKind
	// StartNS and EndNS are the exact recorded epoch nanoseconds.
	StartNS int64
	EndNS   int64
	Status  Status
	Attrs   Attributes
	// Resource and Scope are shared by the spans of one resourceSpans or
	// scopeSpans group.
	Resource *Resource
	Scope    *Scope
	Ref      Ref
}

// Ref locates a span in its source: the file, the 1-based line where the
// span's JSON object begins (for a collector export, the record's line) and
// the 0-based ordinal of the span among all spans of its record.
type Ref struct {
	Path    string
	Line    int64
	Ordinal int
}

func (r Ref) String() string {
	return r.Path + ":" + strconv.FormatInt(r.Line, 10) + "#" + strconv.Itoa(r.Ordinal)
}

// Resource is the resource a group of spans was recorded under.
type Resource struct {
	Attrs Attributes
}

// ServiceName returns the recorded service.name.
func (r *Resource) ServiceName() (string, bool) {
	if r == nil {
		return "", false
	}
	return r.Attrs.String("service.name")
}

// HostName returns the recorded host.name.
func (r *Resource) HostName() (string, bool) {
	if r == nil {
		return "", false
	}
	return r.Attrs.String("host.name")
}

// ProcessPID returns the recorded process.pid.
func (r *Resource) ProcessPID() (int64, bool) {
	if r == nil {
		return 0, false
	}
	v, ok := r.Attrs.Get("process.pid")
	if !ok {
		return 0, false
	}
	return v.Int()
}

// Scope is the instrumentation scope of a group of spans.
type Scope struct {
	Name    string
	Version string
	Attrs   Attributes
}

// Status is a span's recorded status; the zero value is OTLP's "unset".
type Status struct {
	Code    StatusCode
	Message string
}

// StatusCode is OTLP's status code enum.
type StatusCode int32

// Status codes defined by OTLP. Other recorded numbers are kept as they are.
const (
	StatusUnset StatusCode = 0
	StatusOK    StatusCode = 1
	StatusError StatusCode = 2
)

var statusNames = map[string]StatusCode{
	"STATUS_CODE_UNSET": StatusUnset, "STATUS_CODE_OK": StatusOK, "STATUS_CODE_ERROR": StatusError,
}

func (c StatusCode) String() string {
	switch c {
	case StatusUnset:
		return "unset"
	case StatusOK:
		return "ok"
	case StatusError:
		return "error"
	}
	return "status(" + strconv.Itoa(int(c)) + ")"
}

// SpanKind is OTLP's span kind enum.
type SpanKind int32

// Span kinds defined by OTLP. Other recorded numbers are kept as they are.
const (
	KindUnspecified SpanKind = 0
	KindInternal    SpanKind = 1
	KindServer      SpanKind = 2
	KindClient      SpanKind = 3
	KindProducer    SpanKind = 4
	KindConsumer    SpanKind = 5
)

var spanKindNames = map[string]SpanKind{
	"SPAN_KIND_UNSPECIFIED": KindUnspecified, "SPAN_KIND_INTERNAL": KindInternal,
	"SPAN_KIND_SERVER": KindServer, "SPAN_KIND_CLIENT": KindClient,
	"SPAN_KIND_PRODUCER": KindProducer, "SPAN_KIND_CONSUMER": KindConsumer,
}

func (k SpanKind) String() string {
	switch k {
	case KindUnspecified:
		return "unspecified"
	case KindInternal:
		return "internal"
	case KindServer:
		return "server"
	case KindClient:
		return "client"
	case KindProducer:
		return "producer"
	case KindConsumer:
		return "consumer"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Role returns the span's canonical Dynamo role: the recorded
// dynamo.operation.role (lower-cased, "aggregated" → "agg"), else "frontend"
// for the dynamo-frontend service, else "unknown".
func (s *Span) Role() string {
	if v, ok := s.Attrs.Get("dynamo.operation.role"); ok {
		if role, ok := v.Str(); ok {
			return canonicalRole(role)
		}
		return "unknown"
	}
	if service, _ := s.Resource.ServiceName(); service == "dynamo-frontend" {
		return "frontend"
	}
	return "unknown"
}

// canonicalRole lower-cases a role and maps "aggregated" to "agg". It must
// agree with sourcename.CanonicalRole (a test checks), and is repeated here so
// that format packages do not import each other.
func canonicalRole(role string) string {
	role = strings.ToLower(role)
	if role == "aggregated" {
		return "agg"
	}
	return role
}
