package importer

import "github.com/dsight/dsight/internal/importer/join"

// dropServerLogs lets the frontend bridges (and, once attached, the
// worker-log records) go while the streamed join still runs: the join
// holds what it needs of them per request, and these copies, a few hundred
// bytes a record and two or three records a request, were otherwise held
// until the join returned, at the build's highest live heap.
func dropServerLogs(ev *serverEvidence, in *join.Input, workerLogs bool) {
	ev.in.Bridges, in.Bridges = join.Bridges{}, join.Bridges{}
	if workerLogs {
		ev.in.WorkerLogs, in.WorkerLogs = nil, nil
	}
}
