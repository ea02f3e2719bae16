package model

// RequestServer is the server-side evidence joined to one client request:
// the Dynamo request ids bridged to it, the workers that definitely served
// it, and the records (spans, engine id maps, worker bindings, bridge lines
// and the derived lifecycle) already rendered in the contract's JSON shape,
// so every reader shows the same bytes.
type RequestServer struct {
	ServerIDs []string
	Workers   []string
	SpanCount int
	// LifecycleAvailable says whether supported lifecycle activity joined;
	// without it no breakdown is shown or synthesized.
	LifecycleAvailable bool
	// Detail is a JSON object with the keys bridge_evidence, spans, engine,
	// worker_bindings and lifecycle.
	Detail []byte
}

// ServerSpan is a server span no client request owns: queryable, with no
// timeline row.
type ServerSpan struct {
	StartNS, EndNS int64 // relative to Meta.OriginNS
	Record         []byte
}
