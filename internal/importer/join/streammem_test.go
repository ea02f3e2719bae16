package join_test

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/spanspill"
)

// forEachSpan regenerates the spans of n requests shaped like the write_run
// fixture, one request at a time, as a reader rereading a file would: no
// more than one request's spans exist at once.
func forEachSpan(n int, f func(sp *model.Span)) {
	specs := jointest.WriteRunSpecs()
	for i := range n {
		uuid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		base := int64(i) * 10
		for k, s := range specs {
			s.Trace, s.Request, s.Start, s.End = fmt.Sprintf("%032x", i), &uuid, s.Start+base, s.End+base
			sp := jointest.MakeSpan(s, k)
			f(&sp)
		}
	}
}

// generatedRequests are the clients and bridges of n generated requests.
func generatedRequests(n int) ([]model.ClientTiming, join.Input) {
	clients := make([]model.ClientTiming, n)
	bridges := make([]model.Bridge, n)
	for i := range n {
		id, uuid := fmt.Sprintf("client-%d", i), fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		clients[i] = model.ClientTiming{ID: id, StartNS: jointest.MS(int64(i) * 10), EndNS: jointest.MS(int64(i)*10 + 8000)}
		bridges[i] = jointest.Bridge(id, uuid, "front_frontend_0.out", int64(i+1))
	}
	return clients, join.Input{Bridges: join.NewBridges(bridges)}
}

// heapObjects is the heap's object bytes, live and not yet swept.
func heapObjects() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// streamedEvidence joins n generated requests through a Stream whose spans
// wait in spill buckets, and encodes each finished range at once, keeping
// only the deflated chunks. It returns the heap's highest object bytes
// above where it started, sampled after every span and every request.
func streamedEvidence(t *testing.T, n, buckets int) (peak uint64, spans int64) {
	clients, in := generatedRequests(n)
	runtime.GC()
	base := heapObjects()
	note := func() { peak = max(peak, heapObjects()) }

	st, err := join.NewStream(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	forEachSpan(n, func(sp *model.Span) { st.Link(sp) })
	store, err := spanspill.New(t.TempDir(), buckets)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	per := (n + buckets - 1) / buckets
	forEachSpan(n, func(sp *model.Span) {
		spans++
		if owner, _ := st.Route(sp); owner >= 0 {
			if err := store.Add(owner/per, sp); err != nil {
				t.Fatal(err)
			}
		}
		if spans%64 == 0 {
			note()
		}
	})
	st.AttachWorkerLogs()
	var chunks catalog.EvidenceChunks
	for b := range buckets {
		read, err := store.Read(b)
		if err != nil {
			t.Fatal(err)
		}
		ptrs, owners := make([]*model.Span, len(read)), make([]int, len(read))
		for k := range read {
			ptrs[k], owners[k] = &read[k], st.Owner(&read[k])
		}
		ev, err := st.Finish(b*per, min((b+1)*per, n), ptrs, owners)
		if err != nil {
			t.Fatal(err)
		}
		note()
		for k := range ev {
			chunks.Add(&ev[k])
		}
	}
	if sh, err := chunks.Shard(); err != nil || sh == nil || chunks.Len() != n {
		t.Fatalf("%d of %d requests encoded", chunks.Len(), n)
	}
	note()
	if peak < base {
		return 0, spans
	}
	return peak - base, spans
}

// inMemoryEvidence is the same join over every span held at once, the way
// the build reads OTel today, encoded once the join is done.
func inMemoryEvidence(t *testing.T, n int) (peak uint64) {
	clients, in := generatedRequests(n)
	runtime.GC()
	base := heapObjects()
	forEachSpan(n, func(sp *model.Span) { in.Spans = append(in.Spans, *sp) })
	peak = heapObjects()
	j, err := join.Join(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	peak = max(peak, heapObjects())
	if catalog.EncodeEvidence(&model.Dataset{Evidence: j.Requests}) == nil {
		t.Fatal("no evidence")
	}
	peak = max(peak, heapObjects())
	runtime.KeepAlive(in.Spans)
	return peak - min(peak, base)
}

// The join taken in passes holds one bucket of spans at a time, besides
// what is per request and the deflated chunks: well under what holding
// every decoded span takes (about a third at this fixture's small spans).
func TestStreamHeapStaysBelowHoldingSpans(t *testing.T) {
	if testing.Short() {
		t.Skip("joins 70,000 spans twice")
	}
	// A low GC target keeps the heap near its live set, so that the
	// samples measure what is held rather than garbage.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	const n = 5_000
	streamed, spans := streamedEvidence(t, n, n/100)
	held := inMemoryEvidence(t, n)
	t.Logf("%d spans: streamed peak %d KB (%d B a span), held %d KB (%d B a span)",
		spans, streamed>>10, streamed/uint64(spans), held>>10, held/uint64(spans))
	if streamed*2 > held {
		t.Fatalf("the streamed join peaked at %d KB, over half the %d KB that holding every span takes", streamed>>10, held>>10)
	}
}
