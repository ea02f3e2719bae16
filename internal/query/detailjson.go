package query

import (
	"encoding/json"
	"strconv"
)

// The request answer and the lifecycle answer write their own JSON, the
// same bytes json.Marshal writes for RequestDetail and LifecycleRecord
// (detailjson_test.go checks it on every request of the test runs): a
// traced request's answer is ~45 KB of nested records, and the page's
// engine answered a request of a chunk not held in 2.0–2.1 ms with
// reflection, 1.8 ms without (docs/measurements.md, issue 17). Each field
// is one call of a fieldWriter method.

// requestAnswer is the "request" answer: request i's server records, its
// item fields written from the engine's columns (appendItem).
type requestAnswer struct {
	e       *Engine
	i       int
	server  ServerDetail
	pending bool
}

// request answers the "request" kind: one request with its collections.
func (e *Engine) request(id string) (*requestAnswer, error) {
	i, ok := e.lookup(id)
	if !ok {
		return nil, notFound("Unknown request %q", id)
	}
	sd, pending, err := e.serverSide(i)
	if err != nil {
		return nil, err
	}
	return &requestAnswer{e: e, i: i, server: sd, pending: pending}, nil
}

// MarshalJSON serves the surfaces that encode answers themselves (Do).
func (a *requestAnswer) MarshalJSON() ([]byte, error) {
	if b, ok := a.appendJSON(nil); ok {
		return b, nil
	}
	return json.Marshal(a.fallback())
}

// fallback is the answer as a RequestDetail, for json.Marshal: its item is
// made only here.
func (a *requestAnswer) fallback() any {
	return RequestDetail{RequestItem: a.e.item(a.i), ServerDetail: a.server, EvidencePending: a.pending}
}

func (a *requestAnswer) appendJSON(dst []byte) ([]byte, bool) {
	ok := true
	dst = a.e.appendItem(dst, a.i, &ok)
	w := &fieldWriter{b: dst[:len(dst)-1], ok: ok} // the item's closing brace: the detail goes on
	s := &a.server
	w.raw(`,"bridge_evidence":`)
	writeList(w, s.BridgeEvidence, (*fieldWriter).evidence)
	w.raw(`,"spans":`)
	writeList(w, s.Spans, (*fieldWriter).span)
	w.raw(`,"engine":`)
	writeList(w, s.Engine, (*fieldWriter).engine)
	w.raw(`,"worker_bindings":`)
	writeList(w, s.WorkerBindings, (*fieldWriter).binding)
	w.raw(`,"lifecycle":`)
	w.lifecycle(&s.Lifecycle)
	if a.pending {
		w.raw(`,"evidence_pending":true`)
	}
	w.raw("}")
	return w.b, w.ok
}

// plainLifecycle is LifecycleRecord without its own JSON writer, for
// json.Marshal.
type plainLifecycle LifecycleRecord

func (l LifecycleRecord) fallback() any { return plainLifecycle(l) }

func (l LifecycleRecord) appendJSON(dst []byte) ([]byte, bool) {
	w := &fieldWriter{b: dst, ok: true}
	w.lifecycle(&l)
	return w.b, w.ok
}

// fieldWriter appends JSON as json.Marshal writes it; ok turns false at a
// number json.Marshal refuses (NaN, ±Inf). Each method writes a key (with
// its leading comma or brace, as given) and a value. They are not
// inlined: inline, they made the engine's wasm ~100 KB larger, for a few
// percent of the answer's time.
type fieldWriter struct {
	b  []byte
	ok bool
}

//go:noinline
func (w *fieldWriter) raw(s string) { w.b = append(w.b, s...) }

//go:noinline
func (w *fieldWriter) str(key, v string) {
	w.b = appendQuoted(append(w.b, key...), v)
}

//go:noinline
func (w *fieldWriter) strPtr(key string, v *string) {
	w.b = append(w.b, key...)
	if v == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = appendQuoted(w.b, *v)
	}
}

//go:noinline
func (w *fieldWriter) num(key string, v float64) {
	w.b = appendJSONFloat(append(w.b, key...), v, &w.ok)
}

//go:noinline
func (w *fieldWriter) numPtr(key string, v *float64) {
	if v == nil {
		w.b = append(append(w.b, key...), "null"...)
	} else {
		w.num(key, *v)
	}
}

//go:noinline
func (w *fieldWriter) intPtr(key string, v *int64) {
	if v == nil {
		w.b = append(append(w.b, key...), "null"...)
	} else {
		w.int(key, *v)
	}
}

//go:noinline
func (w *fieldWriter) int(key string, v int64) {
	w.b = strconv.AppendInt(append(w.b, key...), v, 10)
}

//go:noinline
func (w *fieldWriter) bool(key string, v bool) {
	w.b = strconv.AppendBool(append(w.b, key...), v)
}

// writeList writes xs as json.Marshal writes a slice: null when nil.
//
//go:noinline
func writeList[T any](w *fieldWriter, xs []T, f func(*fieldWriter, *T)) {
	if xs == nil {
		w.raw("null")
		return
	}
	w.raw("[")
	for k := range xs {
		if k > 0 {
			w.raw(",")
		}
		f(w, &xs[k])
	}
	w.raw("]")
}

func (w *fieldWriter) quoted(s *string) { w.b = appendQuoted(w.b, *s) }

func (w *fieldWriter) strings(xs []string) { writeList(w, xs, (*fieldWriter).quoted) }

func (w *fieldWriter) lifecycle(l *LifecycleRecord) {
	w.str(`{"request":`, l.Request)
	w.bool(`,"available":`, l.Available)
	w.str(`,"layout":`, l.Layout)
	w.raw(`,"stages":`)
	writeList(w, l.Stages, (*fieldWriter).stage)
	w.raw(`,"activities":`)
	writeList(w, l.Activities, (*fieldWriter).activity)
	w.raw(`,"milestones":`)
	writeList(w, l.Milestones, (*fieldWriter).milestone)
	w.raw(`,"issues":`)
	w.strings(l.Issues)
	w.raw(`,"rows":`)
	writeList(w, l.Rows, func(w *fieldWriter, row *[]string) { w.strings(*row) })
	w.str(`,"timing":`, l.Timing)
	w.raw("}")
}

func (w *fieldWriter) evidence(ev *EvidenceRecord) {
	w.raw(`{"source":`)
	if ev.Source == nil {
		w.raw("null")
	} else {
		w.int("", int64(*ev.Source))
	}
	w.str(`,"path":`, ev.Path)
	w.int(`,"line":`, ev.Line)
	if ev.Ordinal != nil {
		w.int(`,"ordinal":`, int64(*ev.Ordinal))
	}
	w.raw("}")
}

func (w *fieldWriter) span(s *SpanRecord) {
	w.spanFields(s)
	w.raw("}")
}

// spanFields writes s's fields after its opening brace: an activity
// record goes on after them.
func (w *fieldWriter) spanFields(s *SpanRecord) {
	w.str(`{"id":`, s.ID)
	w.str(`,"trace":`, s.Trace)
	w.strPtr(`,"parent":`, s.Parent)
	w.str(`,"name":`, s.Name)
	w.num(`,"start":`, s.Start)
	w.num(`,"end":`, s.End)
	w.str(`,"role":`, s.Role)
	w.strPtr(`,"host":`, s.Host)
	w.bool(`,"host_recorded":`, s.HostRecorded)
	w.strPtr(`,"collector":`, s.Collector)
	w.strPtr(`,"process":`, s.Process)
	w.strPtr(`,"request":`, s.Request)
	w.strPtr(`,"operation":`, s.Operation)
	w.str(`,"service":`, s.Service)
	w.raw(`,"evidence":`)
	w.evidence(&s.Evidence)
	w.str(`,"raw_start_ns":`, s.RawStartNS)
	w.str(`,"raw_end_ns":`, s.RawEndNS)
	if r := s.Routing; r == nil {
		w.raw(`,"routing":null`)
	} else {
		w.attr(`,"routing":{"phase":`, r.Phase)
		w.attr(`,"worker_id":`, r.WorkerID)
		w.attr(`,"dp_rank":`, r.DPRank)
		w.attr(`,"request_id":`, r.RequestID)
		w.attr(`,"request.attempt":`, r.Attempt)
		w.attr(`,"migration.is_retry":`, r.IsRetry)
		w.attr(`,"request.outcome":`, r.Outcome)
		w.raw("}")
	}
	w.strPtr(`,"outcome":`, s.Outcome)
	w.strPtr(`,"session_source":`, s.SessionSource)
	w.strPtr(`,"join":`, s.Join)
	w.strPtr(`,"worker":`, s.Worker)
	w.strPtr(`,"worker_basis":`, s.WorkerBasis)
	if rc := s.RoutingContext; rc != nil {
		w.str(`,"routing_context":{"phase":`, rc.Phase)
		w.str(`,"route_span_id":`, rc.RouteSpanID)
		w.raw(`,"route_evidence":`)
		w.evidence(&rc.RouteEvidence)
		w.str(`,"basis":`, rc.Basis)
		w.raw("}")
	}
}

// attr writes one of attrValue's answers. Its AnyValue shapes
// (json.RawMessage) go through json.Marshal, which compacts and escapes
// them: they are rare (bytes, arrays, lists, non-finite doubles).
func (w *fieldWriter) attr(key string, v any) {
	switch v := v.(type) {
	case nil:
		w.raw(key + "null")
	case string:
		w.str(key, v)
	case float64:
		w.num(key, v)
	case bool:
		w.bool(key, v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			w.ok = false
		}
		w.raw(key)
		w.b = append(w.b, b...)
	}
}

func (w *fieldWriter) activity(a *ActivityRecord) {
	w.spanFields(&a.SpanRecord)
	w.str(`,"label":`, a.Label)
	w.str(`,"kind":`, a.Kind)
	w.str(`,"description":`, a.Description)
	w.strPtr(`,"parent_activity":`, a.ParentActivity)
	w.int(`,"depth":`, int64(a.Depth))
	w.raw("}")
}

func (w *fieldWriter) milestone(m *MilestoneRecord) {
	w.num(`{"time":`, m.Time)
	w.str(`,"label":`, m.Label)
	w.str(`,"role":`, m.Role)
	if m.SpanID != "" {
		w.str(`,"span_id":`, m.SpanID)
	}
	if m.Trace != "" {
		w.str(`,"trace":`, m.Trace)
	}
	w.str(`,"boundary":`, m.Boundary)
	w.raw(`,"evidence":`)
	w.evidence(&m.Evidence)
	if m.Host != nil {
		w.str(`,"host":`, *m.Host)
	}
	if m.PhaseBasis != "" {
		w.str(`,"phase_basis":`, m.PhaseBasis)
	}
	w.raw("}")
}

func (w *fieldWriter) stage(s *StageRecord) {
	w.str(`{"id":`, s.ID)
	w.str(`,"name":`, s.Name)
	w.str(`,"kind":`, s.Kind)
	w.int(`,"row":`, int64(s.Row))
	w.str(`,"label":`, s.Label)
	w.num(`,"start":`, s.Start)
	w.num(`,"end":`, s.End)
	w.str(`,"role":`, s.Role)
	w.strPtr(`,"host":`, s.Host)
	w.raw(`,"from_boundary":`)
	w.milestone(&s.FromBoundary)
	w.raw(`,"to_boundary":`)
	w.milestone(&s.ToBoundary)
	w.raw(`,"evidence":`)
	w.evidence(&s.Evidence)
	w.strPtr(`,"source_span_id":`, s.SourceSpanID)
	w.str(`,"description":`, s.Description)
	w.raw("}")
}

func (w *fieldWriter) engine(r *EngineRecord) {
	w.str(`{"worker":`, r.Worker)
	w.str(`,"host":`, r.Host)
	w.str(`,"role":`, r.Role)
	w.str(`,"client_id":`, r.ClientID)
	w.strPtr(`,"disagg_id":`, r.DisaggID)
	w.str(`,"server_id":`, r.ServerID)
	w.strPtr(`,"process":`, r.Process)
	w.raw(`,"evidence":`)
	w.evidence(&r.Evidence)
	if r.ObservedAt != nil {
		w.num(`,"observed_at":`, *r.ObservedAt)
	}
	w.bool(`,"identity_ambiguous":`, r.IdentityAmbiguous)
	w.raw("}")
}

func (w *fieldWriter) binding(b *BindingRecord) {
	w.str(`{"worker":`, b.Worker)
	w.str(`,"host":`, b.Host)
	w.str(`,"role":`, b.Role)
	w.str(`,"server_id":`, b.ServerID)
	w.strPtr(`,"process":`, b.Process)
	w.raw(`,"evidence":`)
	w.evidence(&b.Evidence)
	w.str(`,"basis":`, b.Basis)
	w.bool(`,"ambiguous":`, b.Ambiguous)
	w.raw("}")
}
