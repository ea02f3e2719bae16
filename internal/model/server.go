package model

// RequestServer summarizes the server-side evidence joined to one client
// request: the Dynamo request ids bridged to it and the workers that
// definitely served it. The evidence itself (spans, engine id maps, worker
// bindings, bridge lines) is Dataset.Evidence[Evidence], from which readers
// render records and derive the lifecycle on demand.
type RequestServer struct {
	ServerIDs []string
	Workers   []string
	SpanCount int
	// LifecycleAvailable says whether supported lifecycle activity joined;
	// without it no breakdown is shown or synthesized.
	LifecycleAvailable bool
	Evidence           int
}
