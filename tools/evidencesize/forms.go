package main

import (
	"encoding/hex"

	"github.com/dsight/dsight/internal/model"
)

// The forms a request's evidence is re-encoded in: projections of the
// stored record, each keeping or dropping one kind of field, so that the
// deflated bytes say what each kind costs.

// leanSpanKeys are the span attributes a synchronous answer reads
// (internal/query serverrecords.go SpanRecord, model.Span.Role,
// internal/lifecycle RecordedHost).
var leanSpanKeys = map[string]bool{
	"dynamo.process.epoch":   true, // SpanRecord.Process
	"dynamo.request.id":      true, // SpanRecord.Request
	"dynamo.operation.id":    true, // SpanRecord.Operation
	"dynamo.request.outcome": true, // SpanRecord.Outcome
	"dynamo.session.source":  true, // SpanRecord.SessionSource
	"dynamo.operation.role":  true, // Span.Role
	"dynamo.instance.id":     true, // lifecycle.RecordedHost
}

// leanRouteKeys are what SpanRecord.Routing shows of a route span.
var leanRouteKeys = map[string]bool{
	"phase": true, "worker_id": true, "dp_rank": true, "request_id": true,
	"request.attempt": true, "migration.is_retry": true, "request.outcome": true,
}

const routeSpanName = "kv_router.route_request"

// leanResourceKeys: Resource.ServiceName (SpanRecord.Service, Span.Role).
var leanResourceKeys = map[string]bool{"service.name": true}

func leanKey(span *model.Span, key string) bool {
	return leanSpanKeys[key] || (span.Name == routeSpanName && leanRouteKeys[key])
}

// form maps a stored record to the record encoded. Resources are mapped
// per chunk (the writer shares a resource by pointer), so a form is made
// fresh for each chunk.
type form func(*model.RequestEvidence) *model.RequestEvidence

func full() form { return func(r *model.RequestEvidence) *model.RequestEvidence { return r } }

// lean keeps what the synchronous answers read: every span's ids, name,
// times, ref and join, the lean attributes and resource fields, and the
// bridges, engine rows and bindings whole; then edit changes each span.
func lean(edit func(*model.JoinedSpan)) form {
	res := map[*model.Resource]*model.Resource{}
	return func(r *model.RequestEvidence) *model.RequestEvidence {
		out := *r
		out.Spans = make([]model.JoinedSpan, len(r.Spans))
		for k, js := range r.Spans {
			sp := *js.Span
			sp.Attrs = keep(sp.Attrs, func(key string) bool { return leanKey(js.Span, key) })
			if sp.Resource != nil {
				lr, ok := res[sp.Resource]
				if !ok {
					lr = &model.Resource{Attrs: keep(sp.Resource.Attrs, func(key string) bool { return leanResourceKeys[key] })}
					res[sp.Resource] = lr
				}
				sp.Resource = lr
			}
			sp.Scope, sp.TraceState, sp.Kind, sp.Status = nil, "", 0, model.SpanStatus{}
			js.Span = &sp
			if edit != nil {
				edit(&js)
			}
			out.Spans[k] = js
		}
		return &out
	}
}

// complement keeps what lean drops, and nothing else.
func complement() form {
	return func(r *model.RequestEvidence) *model.RequestEvidence {
		out := &model.RequestEvidence{Spans: make([]model.JoinedSpan, len(r.Spans))}
		for k, js := range r.Spans {
			out.Spans[k] = model.JoinedSpan{Span: &model.Span{
				Attrs:    keep(js.Attrs, func(key string) bool { return !leanKey(js.Span, key) }),
				Resource: js.Resource, Scope: js.Scope, TraceState: js.TraceState, Kind: js.Kind, Status: js.Status,
			}}
		}
		return out
	}
}

// binaryIDs stores hex trace and span ids as their bytes: what a binary
// id column would cost.
func binaryIDs(js *model.JoinedSpan) {
	js.TraceID, js.SpanID, js.ParentSpanID = unhex(js.TraceID), unhex(js.SpanID), unhex(js.ParentSpanID)
}

func unhex(s string) string {
	if b, err := hex.DecodeString(s); err == nil {
		return string(b)
	}
	return s
}

func noIDs(js *model.JoinedSpan)   { js.TraceID, js.SpanID, js.ParentSpanID = "", "", "" }
func noRefs(js *model.JoinedSpan)  { js.Ref = model.SpanRef{} }
func noAttrs(js *model.JoinedSpan) { js.Attrs, js.Resource = nil, nil }
func noTimes(js *model.JoinedSpan) { js.StartNS, js.EndNS = 0, 0 }

// keep returns the attributes of a whose key is wanted, in order.
func keep(a model.Attributes, wanted func(string) bool) model.Attributes {
	var out model.Attributes
	for _, kv := range a {
		if wanted(kv.Key) {
			out = append(out, kv)
		}
	}
	return out
}
