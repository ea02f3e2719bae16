package catalog

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/importer/join/jointest"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
)

// everyField is a joined request that sets every field the codec carries,
// including pointers to zero values (which must stay non-nil) and shared
// resource and scope pointers.
func everyField() []model.RequestEvidence {
	res := &model.Resource{Attrs: model.Attributes{
		{Key: "service.name", Value: model.StringValue("dynamo-frontend")},
		{Key: "process.pid", Value: model.IntValue(-42)},
	}}
	scope := &model.Scope{Name: "dynamo", Version: "0.9", Attrs: model.Attributes{{Key: "s", Value: model.BoolValue(false)}}}
	nested := model.KVListValue(
		model.Attr{Key: "a", Value: model.ArrayValue(model.DoubleValue(1.5), model.Value{}, model.BytesValue([]byte{0, 255}))},
		model.Attr{Key: "b", Value: model.ArrayValue()},
	)
	span := func(id string, start, end int64, ord int) model.Span {
		return model.Span{
			TraceID: jointest.TraceID, SpanID: id, ParentSpanID: "root", TraceState: "k=v", Name: "http-request",
			Kind: model.SpanKindServer, StartNS: start, EndNS: end, Status: model.SpanStatus{Code: model.SpanStatusError, Message: "boom"},
			Attrs:    model.Attributes{{Key: "x", Value: nested}, {Key: "x", Value: model.StringValue("dup key kept")}},
			Resource: res, Scope: scope, Ref: model.SpanRef{Path: "otel/c/traces.jsonl", Line: 7, Ordinal: ord},
		}
	}
	s1, s2, s3 := span("s1", jointest.MS(5), jointest.MS(4), 0), span("s2", jointest.MS(1), jointest.MS(9), 1), span("s3", jointest.MS(1), jointest.MS(1), 2)
	s3.Resource, s3.Scope, s3.Attrs = nil, nil, nil
	zero, empty := int64(0), ""
	return []model.RequestEvidence{{
		Client:         model.ClientTiming{ID: jointest.ClientID, StartNS: jointest.MS(0), EndNS: jointest.MS(8000), FirstNS: &zero, Evidence: model.LineRef{Path: jointest.ClientPath, Line: 3}},
		ServerIDs:      []string{jointest.ServerID, jointest.OtherUUID},
		BridgeEvidence: []model.LineRef{{Path: "front_frontend_0.out", Line: 12}, {Path: "front_frontend_0.out", Line: 1 << 40}},
		Spans: []model.JoinedSpan{
			{Span: &s1, Join: model.JoinRequestID, Worker: "decode-0", WorkerBasis: join.BasisSpanBinding},
			{Span: &s2, Join: model.JoinTraceID, Routing: &model.RoutingContext{Phase: "Prefill", RouteSpanID: "s3", RouteRef: s3.Ref, Basis: "b"}},
			{Span: &s3},
		},
		Engine: []model.EngineEntry{
			{Worker: "decode-0", Host: "h", Role: "decode", ClientID: "7", DisaggID: &empty, ServerID: jointest.ServerID, Process: jointest.Ptr("p"), Ref: model.LineRef{Path: "w.out", Line: 2}, ObservedAtNS: &zero, IdentityAmbiguous: true},
			{Worker: "decode-0", ClientID: "8", ServerID: jointest.ServerID, Ref: model.LineRef{Path: "w.out", Line: 3}},
		},
		Bindings: []model.WorkerBinding{{Worker: "prefill-0", Host: "h2", Role: "prefill", ServerID: jointest.ServerID, Process: &empty, Ref: model.LineRef{Path: "p.out", Line: 9}, Basis: join.BasisWorkerLog, Ambiguous: true}},
		Workers:  []string{"decode-0", "prefill-0"},
		Issues:   []string{"<b>markup</b> stays text"},
	}, {
		Client: model.ClientTiming{ID: "client-only", StartNS: jointest.MS(9000), EndNS: jointest.MS(10000), Evidence: model.LineRef{Path: jointest.ClientPath, Line: 4}},
	}}
}

// roundTrip encodes requests into one chunk and decodes every slot.
func roundTrip(t *testing.T, reqs []model.RequestEvidence) []*model.RequestEvidence {
	t.Helper()
	w := NewEvidenceWriter()
	for i := range reqs {
		if slot := w.AddRequest(&reqs[i]); slot != i {
			t.Fatalf("slot %d, want %d", slot, i)
		}
	}
	b := w.Bytes()
	if again := w.Bytes(); !bytes.Equal(b, again) {
		t.Fatal("Bytes is not repeatable")
	}
	c, err := DecodeEvidenceChunk(b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != len(reqs) {
		t.Fatalf("decoded %d requests, want %d", c.Len(), len(reqs))
	}
	out := make([]*model.RequestEvidence, len(reqs))
	for i := range reqs {
		if out[i], err = c.Request(i); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestChunkRoundTripsEveryField(t *testing.T) {
	reqs := everyField()
	got := roundTrip(t, reqs)
	for i := range reqs {
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

// The fixture's joined requests come back exactly, so the engine derives
// from a report what the build would have.
func TestChunkRoundTripKeepsTheJoin(t *testing.T) {
	j := jointest.JoinWriteRun(t)
	got := roundTrip(t, j.Requests)
	for i := range j.Requests {
		if !reflect.DeepEqual(emptyAsNil(j.Requests[i]), emptyAsNil(*got[i])) {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, *got[i], j.Requests[i])
		}
		if lifecycle.Available(got[i]) != lifecycle.Derive(got[i]).Available {
			t.Errorf("request %d: Available disagrees with Derive", i)
		}
	}
}

// Spans no request owns are stored one record each.
func TestChunkRoundTripsSpans(t *testing.T) {
	reqs := everyField()
	w := NewEvidenceWriter()
	for k := range reqs[0].Spans {
		if slot := w.AddSpan(&reqs[0].Spans[k]); slot != k {
			t.Fatalf("slot %d, want %d", slot, k)
		}
	}
	c, err := DecodeEvidenceChunk(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for k := range reqs[0].Spans {
		sp, err := c.Span(k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sp, &reqs[0].Spans[k]) {
			t.Errorf("span %d:\n got %+v\nwant %+v", k, *sp, reqs[0].Spans[k])
		}
	}
	if _, err := c.Span(len(reqs[0].Spans)); err == nil {
		t.Error("a slot past the end decoded")
	}
}

func TestChunkRejectsDamage(t *testing.T) {
	reqs := everyField()
	w := NewEvidenceWriter()
	for i := range reqs {
		w.AddRequest(&reqs[i])
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
	if _, err := DecodeEvidenceChunk(bad); err == nil {
		t.Error("an unknown version decoded")
	}
}

func decodesEverySlot(b []byte) bool {
	c, err := DecodeEvidenceChunk(b)
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
	w := NewEvidenceWriter()
	for i := range reqs {
		w.AddRequest(&reqs[i])
	}
	f.Add(w.Bytes())
	f.Add(NewEvidenceWriter().Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		defer fuzzlimit.Start(t)()
		c, err := DecodeEvidenceChunk(b)
		if err != nil {
			return
		}
		for i := range c.Len() {
			r, err := c.Request(i)
			if err != nil {
				continue
			}
			// Whatever decodes must derive without panicking.
			if lifecycle.Available(r) != lifecycle.Derive(r).Available {
				t.Fatal("Available disagrees with Derive")
			}
		}
	})
}

// emptyAsNil makes empty lists nil: the codec does not tell them apart,
// and no reader does.
func emptyAsNil(r model.RequestEvidence) model.RequestEvidence {
	if len(r.ServerIDs) == 0 {
		r.ServerIDs = nil
	}
	if len(r.BridgeEvidence) == 0 {
		r.BridgeEvidence = nil
	}
	if len(r.Spans) == 0 {
		r.Spans = nil
	}
	if len(r.Engine) == 0 {
		r.Engine = nil
	}
	if len(r.Bindings) == 0 {
		r.Bindings = nil
	}
	if len(r.Workers) == 0 {
		r.Workers = nil
	}
	if len(r.Issues) == 0 {
		r.Issues = nil
	}
	return r
}
