package model

// EvidenceStream is server evidence a build did not keep as records: the
// join encoded each request's evidence as it finished it, and readers
// (the report writer, the SQL store) take it back one request at a time
// instead of reading Dataset.Evidence. Request k of the stream is what
// Dataset.Evidence[k] would hold, and RequestServer.Evidence indexes it.
type EvidenceStream interface {
	// Len is the number of requests with evidence.
	Len() int
	// Each calls f with every request's evidence in index order, stopping
	// at f's first error, which it returns. ev is valid during the call
	// only; a stream may be read more than once.
	Each(f func(k int, ev *RequestEvidence) error) error
}
