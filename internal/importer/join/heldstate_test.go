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

// frontendLogText is a frontend log bridging each of n requests (client
// id clientID(i)) to generatedRequests' UUIDs, in a generated run's text
// lines.
func frontendLogText(n int) []byte {
	var b bytes.Buffer
	at := time.Unix(0, jointest.Origin).UTC()
	for i := range n {
		fmt.Fprintf(&b, "%s  INFO http-request: dynamo_llm::http::service::service_v2: request received "+
			"dynamo.request.id=%08x-0000-4000-8000-%012x method=POST uri=/v1/chat/completions version=HTTP/1.1 x_request_id=%q\n",
			at.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano), i, i, clientID(i))
	}
	return b.Bytes()
}

// clientID is a client request id as AIPerf records it, a UUID.
func clientID(i int) string { return fmt.Sprintf("%08x-1111-4000-8000-%012x", i, i) }

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// What a traced build holds from the scan of the frontend and worker logs
// to the end of the join sets its highest live heap at a million requests
// (a bridge and two worker-log bindings a request): each is bounded here,
// measured as live heap. Before the records were kept compact a request's
// bridge and bindings held 797 bytes from the scan on, and the join 1,108
// bytes a request once its worker logs were attached (153 and 408 after).
func TestJoinHoldsCompactStatePerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("joins 20,000 generated requests")
	}
	const n = 20_000
	fsys := fstest.MapFS{
		"front_frontend_0.out":        {Data: frontendLogText(n)},
		"prefill-host_prefill_w0.out": {Data: workerLogText(n, "prefill")},
		"decode-host_decode_w0.out":   {Data: workerLogText(n, "decode")},
	}
	clients, _ := generatedRequests(n)
	for i := range clients {
		clients[i].ID = clientID(i)
	}
	base := liveHeap()

	in := jointest.ReadRun(t, fsys) // no OTel export: the spans are made as they are routed
	scanned := liveHeap()

	st, err := join.NewStream(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	in.Bridges = join.Bridges{} // let go once bridged, as the build does
	forEachSpan(n, func(sp *model.Span) { st.Link(sp) })
	forEachSpan(n, func(sp *model.Span) { st.Route(sp) })
	st.AttachWorkerLogs()
	in.WorkerLogs = nil // let go once attached, as the build does
	attached := liveHeap()
	runtime.KeepAlive(fsys)

	res := st.Result(nil)
	if got, want := res.Audit["worker_binding_rows"]+res.Audit["clients_with_server_identity"], int64(3*n); got != want {
		t.Fatalf("%d bridged requests and bindings, want %d (audit %v)", got, want, res.Audit)
	}
	for _, tt := range []struct {
		name        string
		held, bound uint64
	}{
		{"a request's bridge and worker-log bindings as the join takes them", scanned - min(scanned, base), 200},
		{"the join's state of a request, linked, routed and with its bindings attached", attached - min(attached, base), 480},
	} {
		per := tt.held / n
		t.Logf("%s: %d bytes (bound %d)", tt.name, per, tt.bound)
		if per > tt.bound {
			t.Errorf("%s: %d bytes held, over the bound of %d", tt.name, per, tt.bound)
		}
	}
	runtime.KeepAlive(st)
	runtime.KeepAlive(clients)
}
