package model

import (
	"strconv"
	"strings"
)

// Span is one recorded server span (an OpenTelemetry span, or any other
// source's span mapped onto the same shape) with its resource, scope and
// evidence.
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
	Status  SpanStatus
	Attrs   Attributes
	// Resource and Scope are shared by the spans of one resourceSpans or
	// scopeSpans group.
	Resource *Resource
	Scope    *Scope
	Ref      SpanRef
}

// SpanRef locates a span in its source: the file (as the parser was given
// it: run-relative, slash-separated), the 1-based line where the span's
// record begins and the 0-based ordinal of the span among all spans of that
// record.
type SpanRef struct {
	Path    string
	Line    int64
	Ordinal int
}

func (r SpanRef) String() string {
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

// SpanStatus is a span's recorded status; the zero value is OTLP's "unset".
type SpanStatus struct {
	Code    StatusCode
	Message string
}

// StatusCode is OTLP's status code enum.
type StatusCode int32

// Status codes defined by OTLP. Other recorded numbers are kept as they are.
const (
	SpanStatusUnset StatusCode = 0
	SpanStatusOK    StatusCode = 1
	SpanStatusError StatusCode = 2
)

func (c StatusCode) String() string {
	switch c {
	case SpanStatusUnset:
		return "unset"
	case SpanStatusOK:
		return "ok"
	case SpanStatusError:
		return "error"
	}
	return "status(" + strconv.Itoa(int(c)) + ")"
}

// SpanKind is OTLP's span kind enum.
type SpanKind int32

// Span kinds defined by OTLP. Other recorded numbers are kept as they are.
const (
	SpanKindUnspecified SpanKind = 0
	SpanKindInternal    SpanKind = 1
	SpanKindServer      SpanKind = 2
	SpanKindClient      SpanKind = 3
	SpanKindProducer    SpanKind = 4
	SpanKindConsumer    SpanKind = 5
)

func (k SpanKind) String() string {
	switch k {
	case SpanKindUnspecified:
		return "unspecified"
	case SpanKindInternal:
		return "internal"
	case SpanKindServer:
		return "server"
	case SpanKindClient:
		return "client"
	case SpanKindProducer:
		return "producer"
	case SpanKindConsumer:
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
			return CanonicalRole(role)
		}
		return "unknown"
	}
	if service, _ := s.Resource.ServiceName(); service == "dynamo-frontend" {
		return "frontend"
	}
	return "unknown"
}

// Canonical worker roles, as file names, log lines and spans record them
// once CanonicalRole has read them. Aggregated workers are RoleAgg.
const (
	RolePrefill  = "prefill"
	RoleDecode   = "decode"
	RoleAgg      = "agg"
	RoleFrontend = "frontend"
)

// CanonicalRole lower-cases a recorded worker role and maps "aggregated" to
// "agg", so that file names, log lines and spans name roles alike.
func CanonicalRole(role string) string {
	role = strings.ToLower(role)
	if role == "aggregated" {
		return "agg"
	}
	return role
}
