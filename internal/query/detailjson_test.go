package query

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/tools/gen/synth"
)

// detailShapes counts the optional shapes the request answers of a test
// run held, so a test can say it wrote each of them.
type detailShapes struct {
	routing, routingContext, milestoneHost, observedAt, ordinal, pending, activities int
}

// checkDetailJSON asks every request of e through the engine's protocol
// and checks that the request and lifecycle answers are the bytes
// json.Marshal writes for the records they hold (the reflection path),
// and that Do's answer marshals to them too.
func checkDetailJSON(t *testing.T, e *Engine, shapes *detailShapes) {
	t.Helper()
	for i := range e.r.N {
		id := e.r.ID[i]
		q, _ := json.Marshal(map[string]any{"op": "request", "args": map[string]string{"id": id}})
		got, _ := e.AppendAnswer(nil, q)
		sd, pending, err := e.serverSide(i)
		if err != nil {
			t.Fatalf("%q: %v", id, err)
		}
		a := &requestAnswer{e: e, i: i, server: sd, pending: pending}
		d := a.fallback().(RequestDetail) // the reflection path's record
		want, _ := json.Marshal(envelope{OK: true, Result: d})
		// Written by hand, not declined to the reflection path.
		if own, ok := a.appendJSON(nil); !ok || !bytes.Equal(own, want[len(`{"ok":true,"result":`):len(want)-1]) {
			t.Fatalf("request %q: written by hand (ok %v)\n got %s\nwant %s", id, ok, own, want)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("request %q: the answer differs from json.Marshal's\n got %s\nwant %s", id, got, want)
		}
		res, err := e.Do(Request{Op: "request", Args: Args{ID: id}})
		if err != nil {
			t.Fatal(err)
		}
		if b, err := json.Marshal(res); err != nil || !bytes.Equal(b, want[len(`{"ok":true,"result":`):len(want)-1]) {
			t.Fatalf("request %q: Do's answer marshals differently (%v)", id, err)
		}
		if d.EvidencePending {
			shapes.pending++
		} else {
			q, _ = json.Marshal(map[string]any{"op": "lifecycle", "args": map[string]string{"id": id}})
			got, _ = e.AppendAnswer(nil, q)
			want, _ = json.Marshal(envelope{OK: true, Result: plainLifecycle(d.Lifecycle)})
			if !bytes.Equal(got, want) {
				t.Fatalf("lifecycle %q: the answer differs from json.Marshal's\n got %s\nwant %s", id, got, want)
			}
		}
		for _, s := range d.Spans {
			shapes.count(s)
		}
		for _, a := range d.Lifecycle.Activities {
			shapes.count(a.SpanRecord)
			shapes.activities++
		}
		for _, m := range d.Lifecycle.Milestones {
			if m.Host != nil {
				shapes.milestoneHost++
			}
		}
		for _, en := range d.Engine {
			if en.ObservedAt != nil {
				shapes.observedAt++
			}
		}
	}
}

func (c *detailShapes) count(s SpanRecord) {
	if s.Routing != nil {
		c.routing++
	}
	if s.RoutingContext != nil {
		c.routingContext++
	}
	if s.Evidence.Ordinal != nil {
		c.ordinal++
	}
}

// Every request of the golden runs (every source; an AgentPerf one), of
// the fixtures, and of a run whose evidence holds hostile strings and
// every kind of attribute value, is answered byte for byte as
// json.Marshal writes its RequestDetail, and its lifecycle as
// json.Marshal writes its LifecycleRecord; a request whose evidence is
// not attached yet too.
func TestRequestDetailJSONMatchesMarshal(t *testing.T) {
	var shapes detailShapes
	all := synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers | synth.SourceSGLang | synth.SourceTokenSpeed | synth.SourceTachometer | synth.SourceNsight
	for name, cfg := range map[string]synth.Config{
		"golden":    {Seed: 2, Requests: 60, Sources: synth.SourceAIPerf | all},
		"agentperf": {Seed: 5, Requests: 80, Sources: synth.SourceAgentPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers},
		"hostile":   {Seed: 7, Requests: 40, Hostile: true, Sources: synth.SourceAIPerf | synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers},
	} {
		t.Run(name, func(t *testing.T) { checkDetailJSON(t, importedRun(t, cfg), &shapes) })
	}
	t.Run("fixtures", func(t *testing.T) {
		for _, d := range []*model.Dataset{fixture(), serverFixture(), tracedFixture(100), hostileEvidenceDataset()} {
			e, err := FromDataset(d)
			if err != nil {
				t.Fatal(err)
			}
			checkDetailJSON(t, e, &shapes)
		}
	})
	t.Run("pending", func(t *testing.T) { checkDetailJSON(t, withoutEvidence(t, serverFixture()), &shapes) })
	if shapes.routing == 0 || shapes.routingContext == 0 || shapes.milestoneHost == 0 || shapes.observedAt == 0 ||
		shapes.ordinal == 0 || shapes.pending == 0 || shapes.activities == 0 {
		t.Fatalf("the runs did not hold every optional shape of an answer: %+v", shapes)
	}
}

// hostileEvidenceDataset is serverFixture with hostile strings in its
// spans' names, ids and attributes, and a routing span whose attributes
// are of every kind attrValue answers (an array and a NaN double in their
// AnyValue shapes).
func hostileEvidenceDataset() *model.Dataset {
	d := serverFixture()
	ev := &d.Evidence[0]
	for k, s := range hostileStrings {
		sp := *ev.Spans[k%len(ev.Spans)].Span
		sp.SpanID, sp.Name = s+"id", s
		sp.Attrs = model.Attributes{
			{Key: "dynamo.request.id", Value: model.StringValue(s)},
			{Key: "dynamo.process.epoch", Value: model.StringValue(s + s)},
		}
		ev.Spans = append(ev.Spans, model.JoinedSpan{Span: &sp, Join: s, Worker: s, WorkerBasis: s})
	}
	route := *ev.Spans[0].Span
	route.SpanID, route.Name = "route", "kv_router.route_request"
	route.Attrs = model.Attributes{
		{Key: "phase", Value: model.StringValue("prefill<&>\u2028")},
		{Key: "worker_id", Value: model.IntValue(math.MaxInt64)},
		{Key: "dp_rank", Value: model.DoubleValue(1e-7)},
		{Key: "request_id", Value: model.BoolValue(true)},
		{Key: "request.attempt", Value: model.DoubleValue(math.NaN())},
		{Key: "migration.is_retry", Value: model.ArrayValue(model.StringValue("<a>"), model.IntValue(-1))},
	}
	ev.Spans = append(ev.Spans, model.JoinedSpan{Span: &route})
	for k, s := range hostileStrings {
		ev.Engine = append(ev.Engine, model.EngineEntry{
			Worker: s, Host: s, Role: "decode", ClientID: s, DisaggID: &s, ServerID: s, Process: &s,
			Ref: model.LineRef{Path: s, Line: int64(k)}, ObservedAtNS: ptr(d.Meta.OriginNS + int64(k)*s0/3), IdentityAmbiguous: k%2 == 0,
		})
		ev.Bindings = append(ev.Bindings, model.WorkerBinding{Worker: s, Host: s, Role: s, ServerID: s, Process: &s, Ref: model.LineRef{Path: s, Line: 1}, Basis: s, Ambiguous: k%2 == 1})
	}
	return d
}
