package lifecycle

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/dynamolog"
	"github.com/dsight/dsight/internal/otlp"
)

// everyField is a joined request that sets every field the codec carries,
// including pointers to zero values (which must stay non-nil) and shared
// resource and scope pointers.
func everyField() []Request {
	res := &otlp.Resource{Attrs: otlp.Attributes{
		{Key: "service.name", Value: otlp.StringValue("dynamo-frontend")},
		{Key: "process.pid", Value: otlp.IntValue(-42)},
	}}
	scope := &otlp.Scope{Name: "dynamo", Version: "0.9", Attrs: otlp.Attributes{{Key: "s", Value: otlp.BoolValue(false)}}}
	nested := otlp.KVListValue(
		otlp.Attr{Key: "a", Value: otlp.ArrayValue(otlp.DoubleValue(1.5), otlp.Value{}, otlp.BytesValue([]byte{0, 255}))},
		otlp.Attr{Key: "b", Value: otlp.ArrayValue()},
	)
	span := func(id string, start, end int64, ord int) otlp.Span {
		return otlp.Span{
			TraceID: traceID, SpanID: id, ParentSpanID: "root", TraceState: "k=v", Name: "http-request",
			Kind: otlp.KindServer, StartNS: start, EndNS: end, Status: otlp.Status{Code: otlp.StatusError, Message: "boom"},
			Attrs:    otlp.Attributes{{Key: "x", Value: nested}, {Key: "x", Value: otlp.StringValue("dup key kept")}},
			Resource: res, Scope: scope, Ref: otlp.Ref{Path: "otel/c/traces.jsonl", Line: 7, Ordinal: ord},
		}
	}
	s1, s2, s3 := span("s1", ms(5), ms(4), 0), span("s2", ms(1), ms(9), 1), span("s3", ms(1), ms(1), 2)
	s3.Resource, s3.Scope, s3.Attrs = nil, nil, nil
	zero, empty := int64(0), ""
	return []Request{{
		Client:         ClientRequest{ID: clientID, StartNS: ms(0), EndNS: ms(8000), FirstNS: &zero, Evidence: Evidence{Source: ptr(0), Path: clientPath, Line: 3, Ordinal: ptr(0)}},
		ServerIDs:      []string{serverID, otherUUID},
		BridgeEvidence: []dynamolog.Ref{{Path: "front_frontend_0.out", Line: 12}, {Path: "front_frontend_0.out", Line: 1 << 40}},
		Spans: []Span{
			{Span: &s1, Join: JoinRequestID, Worker: "decode-0", WorkerBasis: BasisSpanBinding},
			{Span: &s2, Join: JoinTraceID, Routing: &RoutingContext{Phase: "Prefill", RouteSpanID: "s3", RouteRef: s3.Ref, Basis: "b"}},
			{Span: &s3},
		},
		Engine: []EngineEntry{
			{Worker: "decode-0", Host: "h", Role: "decode", ClientID: "7", DisaggID: &empty, ServerID: serverID, Process: ptr("p"), Ref: dynamolog.Ref{Path: "w.out", Line: 2}, ObservedAtNS: &zero, IdentityAmbiguous: true},
			{Worker: "decode-0", ClientID: "8", ServerID: serverID, Ref: dynamolog.Ref{Path: "w.out", Line: 3}},
		},
		Bindings: []Binding{{Worker: "prefill-0", Host: "h2", Role: "prefill", ServerID: serverID, Process: &empty, Ref: dynamolog.Ref{Path: "p.out", Line: 9}, Basis: BasisWorkerLog, Ambiguous: true}},
		Workers:  []string{"decode-0", "prefill-0"},
		Issues:   []string{"<b>markup</b> stays text"},
	}, {
		Client: ClientRequest{ID: "client-only", StartNS: ms(9000), EndNS: ms(10000), Evidence: Evidence{Path: clientPath, Line: 4}},
	}}
}

// roundTrip encodes requests into one chunk and decodes every slot.
func roundTrip(t *testing.T, reqs []Request) []*Request {
	t.Helper()
	w := NewChunkWriter()
	for i := range reqs {
		if slot := w.Add(&reqs[i]); slot != i {
			t.Fatalf("slot %d, want %d", slot, i)
		}
	}
	b := w.Bytes()
	if again := w.Bytes(); !bytes.Equal(b, again) {
		t.Fatal("Bytes is not repeatable")
	}
	c, err := DecodeChunk(b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != len(reqs) {
		t.Fatalf("decoded %d requests, want %d", c.Len(), len(reqs))
	}
	out := make([]*Request, len(reqs))
	for i := range reqs {
		if out[i], err = c.Request(i); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// forget drops the lazily computed identity, which the codec does not carry.
func forget(r *Request) {
	for k := range r.Spans {
		r.Spans[k].ident = identity{}
	}
}

func TestChunkRoundTripsEveryField(t *testing.T) {
	reqs := everyField()
	got := roundTrip(t, reqs)
	for i := range reqs {
		forget(&reqs[i])
		forget(got[i])
		if !reflect.DeepEqual(&reqs[i], got[i]) {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, *got[i], reqs[i])
		}
	}
	if got[0].Client.FirstNS == nil || got[0].Engine[0].DisaggID == nil || got[0].Engine[0].ObservedAtNS == nil || got[0].Bindings[0].Process == nil {
		t.Error("a pointer to a zero value came back nil: unknown and zero must stay distinct")
	}
	if got[0].Spans[0].Resource != got[0].Spans[1].Resource {
		t.Error("spans of one resource group no longer share it")
	}
}

// The fixture's joined requests render the same records and lifecycle
// after a round trip: what the engine derives from a report is what the
// build derived.
func TestChunkRoundTripRendersTheSame(t *testing.T) {
	j := joinWriteRun(t)
	f := writeRunFrame()
	got := roundTrip(t, j.Requests)
	for i := range j.Requests {
		if Available(got[i]) != Derive(got[i], f).Available {
			t.Errorf("request %d: Available disagrees with Derive", i)
		}
		if want, have := render(t, &j.Requests[i], f), render(t, got[i], f); !bytes.Equal(want, have) {
			t.Errorf("request %d renders differently:\n got %s\nwant %s", i, have, want)
		}
	}
}

func render(t *testing.T, r *Request, f Frame) []byte {
	t.Helper()
	spans, engine, bindings := r.Records(f)
	b, err := json.Marshal([]any{r.ServerIDs, r.BridgeEvidence, spans, engine, bindings, r.Workers, r.Issues, Derive(r, f)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestChunkRejectsDamage(t *testing.T) {
	reqs := everyField()
	w := NewChunkWriter()
	for i := range reqs {
		w.Add(&reqs[i])
	}
	b := w.Bytes()
	for n := range len(b) {
		if decodesEverySlot(b[:n]) {
			t.Fatalf("a chunk cut to %d of %d bytes decoded", n, len(b))
		}
	}
	if decodesEverySlot(append(append([]byte{}, b...), 0)) {
		t.Error("a trailing byte went unnoticed")
	}
	bad := append([]byte{}, b...)
	bad[len(chunkMagic)] = chunkVersion + 1
	if _, err := DecodeChunk(bad); err == nil {
		t.Error("an unknown version decoded")
	}
}

func decodesEverySlot(b []byte) bool {
	c, err := DecodeChunk(b)
	if err != nil {
		return false
	}
	for i := range c.Len() {
		if _, err := c.Request(i); err != nil {
			return false
		}
	}
	return true
}

func FuzzDecodeChunk(f *testing.F) {
	reqs := everyField()
	w := NewChunkWriter()
	for i := range reqs {
		w.Add(&reqs[i])
	}
	f.Add(w.Bytes())
	f.Add(NewChunkWriter().Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeChunk(b)
		if err != nil {
			return
		}
		for i := range c.Len() {
			r, err := c.Request(i)
			if err != nil {
				continue
			}
			// Whatever decodes must render without panicking.
			r.Records(Frame{})
			if Available(r) != Derive(r, Frame{}).Available {
				t.Fatal("Available disagrees with Derive")
			}
		}
	})
}
