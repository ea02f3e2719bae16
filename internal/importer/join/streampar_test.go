package join_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/spanspill"
)

// owned is one bucket's spans with the owners OwnerOf found for them.
type owned struct {
	spans  []model.JoinedSpan
	owners []int
}

// ownersAhead finds the owners of each bucket's spans on a goroutine of
// its own while the caller routes or finishes the bucket before, as the
// build does; under the race detector it shows OwnerOf reads nothing
// Route or Finish writes.
func ownersAhead(st *join.Stream, buckets [][]model.Span) <-chan owned {
	out := make(chan owned, 1)
	go func() {
		defer close(out)
		for _, spans := range buckets {
			o := owned{make([]model.JoinedSpan, len(spans)), make([]int, len(spans))}
			for k := range spans {
				o.spans[k].Span = &spans[k]
				o.owners[k], o.spans[k].Join = st.OwnerOf(&spans[k])
			}
			out <- o
		}
	}()
	return out
}

// The join with every owner found apart from Route and Finish, beside
// them, stores and counts what the join over every span in memory does.
func TestStreamOwnersFoundBesideRouteAndFinish(t *testing.T) {
	clients, in := generatedInput(t)
	want, err := join.Join(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	wantChunks := encodeRequests(want.Requests)
	const buckets = 5
	st, err := join.NewStream(clients, in)
	if err != nil {
		t.Fatal(err)
	}
	for k := range in.Spans {
		st.Link(&in.Spans[k])
	}
	// Route, in input order, with owners found a slice of spans ahead.
	var slices [][]model.Span
	for lo := 0; lo < len(in.Spans); lo += 97 {
		slices = append(slices, in.Spans[lo:min(lo+97, len(in.Spans))])
	}
	per := (len(clients) + buckets - 1) / buckets
	store, err := spanspill.New(t.TempDir(), buckets)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var server []model.JoinedSpan
	for o := range ownersAhead(st, slices) {
		for k, js := range o.spans {
			switch owner, isServer := o.owners[k], st.RouteOwned(js.Span, o.owners[k]); {
			case owner >= 0:
				if err := store.Add(owner/per, js.Span); err != nil {
					t.Fatal(err)
				}
			case isServer:
				server = append(server, model.JoinedSpan{Span: js.Span})
			}
		}
	}
	st.AttachWorkerLogs()
	read := make([][]model.Span, buckets)
	for b := range read {
		if read[b], err = store.Read(b); err != nil {
			t.Fatal(err)
		}
	}
	reqs := make([]model.RequestEvidence, len(clients))
	b := 0
	for o := range ownersAhead(st, read) {
		lo, hi := b*per, min((b+1)*per, len(clients))
		ev, err := st.FinishOwned(lo, hi, o.spans, o.owners)
		if err != nil {
			t.Fatal(err)
		}
		copy(reqs[lo:hi], ev)
		b++
	}
	got := st.Result(server)
	if !reflect.DeepEqual(got.Audit, want.Audit) || got.FirstUnjoined != want.FirstUnjoined {
		t.Fatalf("audit %v, first unjoined %q; want %v, %q", got.Audit, got.FirstUnjoined, want.Audit, want.FirstUnjoined)
	}
	gotChunks := encodeRequests(reqs)
	for k := range wantChunks {
		if !bytes.Equal(gotChunks[k], wantChunks[k]) {
			t.Fatalf("evidence chunk %d differs", k)
		}
	}
	if len(got.ServerSpans) != len(want.ServerSpans) {
		t.Fatalf("%d server spans, want %d", len(got.ServerSpans), len(want.ServerSpans))
	}
}
