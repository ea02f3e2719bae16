package query

// The summary's capabilities and counts are fixed once the core shard is
// open: they read only core columns (the request_server table's worker
// lists, the metric catalog, the profiles). Deriving them walks every
// request's worker list, which on a 100,000-request traced report made
// describe() cost tens of milliseconds in the page on every call; they are
// derived once instead, and each answer copies what a caller could alter.

type summaryParts struct {
	capabilities Capabilities
	workers      int
}

func (e *Engine) summaryParts() summaryParts {
	e.summaryOnce.Do(func() {
		e.summaryDone = summaryParts{capabilities: e.capabilities(), workers: len(e.workersWithEvidence())}
	})
	return e.summaryDone
}
