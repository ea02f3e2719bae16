package model

// RequestEvidence is the server evidence joined to one client request: the
// bridge lines that name its Dynamo request ids, the spans, engine id maps
// and worker bindings recorded for those ids, and the workers they
// definitely name. The build forms it; a report stores it (see
// internal/catalog's evidence chunks); readers derive the lifecycle from it.
type RequestEvidence struct {
	Client ClientTiming
	// ServerIDs are the Dynamo request UUIDs bridged to the client, in
	// bridge order; BridgeEvidence[i] is the first line bridging ServerIDs[i].
	ServerIDs      []string
	BridgeEvidence []LineRef
	// Spans are sorted by (start, -end, trace, span id).
	Spans    []JoinedSpan
	Engine   []EngineEntry
	Bindings []WorkerBinding
	// Workers are the workers definitely involved: sorted, from
	// unambiguous bindings and assigned spans.
	Workers []string
	Issues  []string
}

// ClientTiming is a client request as server evidence is measured against
// it. Times are absolute epoch nanoseconds.
type ClientTiming struct {
	ID      string
	StartNS int64
	EndNS   int64
	// FirstNS is the client's first-token boundary; nil when the client
	// recorded none (or an unusable one).
	FirstNS *int64
	// Evidence is the client export row the times come from.
	Evidence LineRef
}

// Values of JoinedSpan.Join.
const (
	JoinNone      = ""
	JoinRequestID = "request_id"
	JoinTraceID   = "trace_id"
)

// JoinedSpan is a server span with what the join learned about it.
type JoinedSpan struct {
	*Span
	// Join says how the span reached its request: JoinRequestID,
	// JoinTraceID, or JoinNone for a server span no request owns.
	Join string
	// Worker is the worker that recorded the span ("" when no unique worker
	// is known) and WorkerBasis the evidence that says so.
	Worker      string
	WorkerBasis string
	// Routing is the phase associated with a kv_router.select_worker span
	// from the route that follows it; nil otherwise.
	Routing *RoutingContext
}

// RoutingContext associates a worker selection with the phase recorded on
// the next route of the same trace and parent.
type RoutingContext struct {
	Phase       string
	RouteSpanID string
	RouteRef    SpanRef
	Basis       string
}

// WorkerBinding records that a worker process handled one of a request's
// Dynamo request ids.
type WorkerBinding struct {
	Worker   string
	Host     string
	Role     string
	ServerID string
	// Process is the process epoch; nil for an Engine ID map whose
	// process the request's spans do not tell uniquely.
	Process *string
	Ref     LineRef
	Basis   string
	// Ambiguous: another worker claims the same request, host, role and
	// process (a duplicated log, say). It stays evidence, but never makes
	// a worker definite.
	Ambiguous bool
}

// EngineEntry is a TensorRT-LLM Engine ID map row joined to a request.
type EngineEntry struct {
	Worker   string
	Host     string
	Role     string
	ClientID string  // the engine's process-local client id
	DisaggID *string // nil when recorded as None
	ServerID string
	// Process is the unique epoch the request's spans record for this host
	// and role; nil when they record none or several.
	Process      *string
	Ref          LineRef
	ObservedAtNS *int64
	// IdentityAmbiguous: the process is unknown, or the same worker
	// process maps this client id to several requests.
	IdentityAmbiguous bool
}
