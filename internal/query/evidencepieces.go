package query

// EvidenceChunkOf names the evidence chunk holding request id's server
// evidence, for a reader that hands the engine only the evidence piece
// holding it (a one-shot CLI question about one request); ok is false when
// the request is unknown or has no server evidence.
func (e *Engine) EvidenceChunkOf(id string) (chunk int, ok bool) {
	i, found := e.lookup(id)
	if !found || e.serverRow[i] < 0 {
		return 0, false
	}
	return int(e.c.Server.Chunk[e.serverRow[i]]), true
}
