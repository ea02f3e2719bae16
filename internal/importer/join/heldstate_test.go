package join_test

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
)

// workerLogText is a worker log of host role-host binding each of n
// generated requests (generatedRequests' UUIDs) once, in the JSON lines
// of a generated run's worker logs, at second i of the run.
func workerLogText(n int, role string) []byte {
	var b bytes.Buffer
	at := time.Unix(0, jointest.Origin).UTC()
	for i := range n {
		fmt.Fprintf(&b, `{"time":%q,"level":"INFO","target":"dynamo.request_lifecycle","message":"worker.admission",`+
			`"dynamo.request.id":"%08x-0000-4000-8000-%012x","dynamo.operation.id":"%08x-1111-4000-8000-%012x",`+
			`"dynamo.operation.role":%q,"dynamo.instance.id":"%s-host","dynamo.process.epoch":"epoch-%s"}`+"\n",
			at.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano), i, i, i, i, role, role, role)
	}
	return b.Bytes()
}

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// What a traced build holds from the scan of the worker logs, and from the
// bridging, to the end of the join sets its highest live heap at a
// million requests (two worker-log bindings a request): each is bounded
// here, measured as live heap. Before the records were kept compact a
// binding held 254 bytes from the scan on, and the join 1,111 bytes a
// request once its worker logs were attached (48 and 408 after).
func TestJoinHoldsCompactStatePerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("joins 20,000 generated requests")
	}
	const n = 20_000
	fsys := fstest.MapFS{
		"prefill-host_prefill_w0.out": {Data: workerLogText(n, "prefill")},
		"decode-host_decode_w0.out":   {Data: workerLogText(n, "decode")},
	}
	clients, _ := generatedRequests(n)
	base := liveHeap()

	in := jointest.ReadRun(t, fsys) // its worker logs only: no OTel export, no frontend log
	scanned := liveHeap()

	_, bridged := generatedRequests(n)
	in.Bridges = bridged.Bridges
	st, err := join.NewStream(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	in.Bridges, bridged = nil, join.Input{} // let go once bridged, as the build does
	forEachSpan(n, func(sp *model.Span) { st.Link(sp) })
	forEachSpan(n, func(sp *model.Span) { st.Route(sp) })
	st.AttachWorkerLogs()
	in.WorkerLogs = nil // let go once attached, as the build does
	attached := liveHeap()
	runtime.KeepAlive(fsys)

	res := st.Result(nil)
	if got := res.Audit["worker_binding_rows"]; got != 2*n {
		t.Fatalf("%d bindings attached, want %d (audit %v)", got, 2*n, res.Audit)
	}
	for _, tt := range []struct {
		name        string
		held, units uint64
		bound       uint64
	}{
		{"worker-log bindings as the join takes them, a binding", scanned - min(scanned, base), 2 * n, 80},
		{"the join's state, linked, routed and with its bindings attached, a request", attached - min(attached, base), n, 500},
	} {
		per := tt.held / tt.units
		t.Logf("%s: %d bytes (bound %d)", tt.name, per, tt.bound)
		if per > tt.bound {
			t.Errorf("%s: %d bytes held, over the bound of %d", tt.name, per, tt.bound)
		}
	}
	runtime.KeepAlive(st)
	runtime.KeepAlive(clients)
}
