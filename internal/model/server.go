package model

// RequestServer is the server-side evidence joined to one client request:
// the Dynamo request ids bridged to it and the workers that definitely
// served it. The evidence itself (spans, engine id maps, worker bindings,
// bridge lines) is encoded in Dataset.ServerChunks[Chunk] at Slot, from
// which readers render records and derive the lifecycle on demand.
type RequestServer struct {
	ServerIDs []string
	Workers   []string
	SpanCount int
	// LifecycleAvailable says whether supported lifecycle activity joined;
	// without it no breakdown is shown or synthesized.
	LifecycleAvailable bool
	Chunk, Slot        int
}

// ServerSpan is a server span no client request owns: queryable, with no
// timeline row.
type ServerSpan struct {
	StartNS, EndNS int64 // relative to Meta.OriginNS
	Record         []byte
}
