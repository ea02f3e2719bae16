// Package join attaches a run's server evidence to its client requests at
// build time, using recorded identities only, never time proximity:
//
//   - a frontend bridge maps the client's explicit request header to a
//     Dynamo request UUID (a UUID bridged from two known clients is an
//     error; a client bridged to several UUIDs keeps them all);
//   - a span joins through its dynamo.request.id when that UUID is bridged,
//     or, when it records no request id, through a trace that exactly one
//     client request is linked to;
//   - a span is linked to a worker by an explicit process binding (request,
//     host, role and process epoch recorded in a worker log, or an Engine ID
//     map), else by the weaker, labeled basis of a unique recorded host and
//     role. Conflicting bindings stay as evidence and never pick a worker.
//
// No clock is corrected and no cross-host skew is estimated. The join takes
// internal/model's evidence types (the bridges and worker logs kept compact
// until it reads them: NewBridges, NewWorkerLog) and returns them; it is a
// pure function of its arguments (no I/O, no clock, no map order in the
// output) and works in exact epoch nanoseconds.
package join

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/sourcename"
)

// ErrAmbiguousBridge marks one Dynamo request UUID bridged from two
// different known client requests: no join can say which one it served.
var ErrAmbiguousBridge = errors.New("ambiguous client/server bridge")

// Input is the server evidence of one run, as the parsers return it.
type Input struct {
	// Bridges from every frontend log, in file order (files sorted by path).
	Bridges Bridges
	// Spans are decoded, de-duplicated server spans. An inverted span found
	// here is counted and never joined.
	Spans []model.Span
	// WorkerLogs are the scanned worker logs with the identity of their
	// file names, sorted by path.
	WorkerLogs []WorkerLog
	// Workers registers workers known from other sources (metric series,
	// Nsight profile names). Worker-log names are registered already.
	Workers []Worker
	// Window, when set, keeps spans outside it from joining. Such spans
	// still link their trace to a request, as any recorded id does.
	Window *Window
}

// Worker is a worker recorded by some source: id "<role>-<index>", the host
// it ran on and its canonical role.
type Worker struct {
	ID, Host, Role string
}

// Window is a closed interval of absolute epoch nanoseconds.
type Window struct {
	StartNS, EndNS int64
}

// identity is what a span records about who handled it, read once: the
// worker association compares it against every binding.
type identity struct {
	host, process, request, role  string
	hostRecorded, processRecorded bool
	read                          bool
}

// request is a client request with the server evidence joined to it
// before its spans are: its bridges, engine entries and bindings. It is
// held for every request from the bridging to the finish, so it keeps no
// more than that.
type request struct {
	Client model.ClientTiming
	// bridges are the server ids bridged to the request, in bridge order,
	// each with the first line bridging it (RequestEvidence.ServerIDs and
	// BridgeEvidence).
	bridges []bridged
	Engine  []model.EngineEntry
	bound   []bound // the bindings, until the request is finished
}

type bridged struct {
	id  string
	ref model.LineRef
}

// serverIDs are r's bridged server ids and their lines, as
// model.RequestEvidence holds them (nil when none).
func (r *request) serverIDs() (ids []string, refs []model.LineRef) {
	if len(r.bridges) == 0 {
		return nil, nil
	}
	ids, refs = make([]string, len(r.bridges)), make([]model.LineRef, len(r.bridges))
	for k, b := range r.bridges {
		ids[k], refs[k] = b.id, b.ref
	}
	return ids, refs
}

// finishing is a request while Finish joins its spans. idents[k] caches
// what Spans[k] records about who handled it; it is filled once the spans
// are in their final order.
type finishing struct {
	model.RequestEvidence
	idents []identity
}

// identity returns what span k of r records about who handled it.
func (r *finishing) identity(k int) *identity {
	id := &r.idents[k]
	if !id.read {
		fillIdentity(id, r.Spans[k].Span)
	}
	return id
}

func fillIdentity(id *identity, s *model.Span) {
	id.role = s.Role()
	id.host, id.hostRecorded = recorded(s, "dynamo.instance.id")
	id.process, id.processRecorded = recorded(s, "dynamo.process.epoch")
	id.request, id.read = requestID(s), true
}

// Joined is the result of Join.
type Joined struct {
	// Requests follow the order of the clients given to Join.
	Requests []model.RequestEvidence
	// ServerSpans are valid spans no request owns whose name is a
	// lifecycle activity; they stay queryable but draw no timeline rows.
	ServerSpans []model.JoinedSpan
	// Audit counts what the join saw; keys follow the contract's audit map.
	Audit map[string]int64
	// FirstUnjoined locates the first worker-log binding or engine map
	// whose Dynamo request id no bridge names (file:line), "" when none.
	FirstUnjoined string
}

// Texts shown as evidence bases and issues.
const (
	RoutingBasis = "Inferred from the immediately following route with the same trace and parent; " +
		"phase is recorded on that route."
	MultipleServerIDsIssue = "Bridged to several Dynamo request IDs; their attempt relationship is unverified"
)

type joiner struct {
	in         *Input
	out        *Joined
	reqs       []request
	byClient   map[string]int
	byServer   map[string]int // bridged UUID → request index
	traceOwner traceOwners
	// logs are the worker logs' names, by WorkerLog index, once attached.
	logs []sourcename.Identity
}

// Join attaches bridges, spans, worker bindings and engine maps to the
// client requests. It fails on duplicate client ids and on ambiguous
// bridges; everything else uncertain is kept as counted evidence.
func Join(clients []model.ClientTiming, in Input) (*Joined, error) {
	st, err := NewStream(clients, in)
	if err != nil {
		return nil, err
	}
	spans := in.Spans
	for k := range spans {
		st.Link(&spans[k])
	}
	// One range holds every request: the spans it owns, in input order.
	owned, owners := make([]*model.Span, 0, len(spans)), make([]int, 0, len(spans))
	var server []model.JoinedSpan
	for k := range spans {
		switch owner, isServer := st.Route(&spans[k]); {
		case owner >= 0:
			owned, owners = append(owned, &spans[k]), append(owners, owner)
		case isServer:
			server = append(server, model.JoinedSpan{Span: &spans[k]})
		}
	}
	st.AttachWorkerLogs()
	reqs, err := st.Finish(0, len(clients), owned, owners)
	if err != nil {
		return nil, err
	}
	out := st.Result(server)
	out.Requests = reqs
	return out, nil
}

func (j *joiner) bridge() error {
	bridgedAt := map[string]model.LineRef{}
	var buf bridgeIDs
	for k := range j.in.Bridges.recs {
		client, server := j.in.Bridges.ids(k, &buf)
		i, known := j.byClient[string(client)]
		if !known {
			j.out.Audit["unknown_client_bridges"]++
			continue
		}
		ref := j.in.Bridges.ref(k)
		if owner, ok := j.byServer[string(server)]; ok {
			if owner != i {
				return fmt.Errorf("%s: %w: Dynamo request %s is bridged from client %q and from client %q at %s",
					ref, ErrAmbiguousBridge, server, client, j.reqs[owner].Client.ID, bridgedAt[string(server)])
			}
			continue
		}
		id := string(server)
		j.byServer[id] = i
		bridgedAt[id] = ref
		r := &j.reqs[i]
		r.bridges = append(r.bridges, bridged{id, ref})
	}
	for i := range j.reqs {
		r := &j.reqs[i]
		if len(r.bridges) > 0 {
			j.out.Audit["clients_with_server_identity"]++
		}
		if len(r.bridges) > 1 {
			j.out.Audit["multiple_server_identities"]++ // and the issue, once finished
		}
	}
	return nil
}

// count adds n to an audit counter; absent keys mean 0, so zeros stay out.
func (j *joiner) count(key string, n int64) {
	if n != 0 {
		j.out.Audit[key] += n
	}
}

func compareSpans(a, b model.JoinedSpan) int {
	return cmp.Or(
		cmp.Compare(a.StartNS, b.StartNS),
		cmp.Compare(b.EndNS, a.EndNS),
		cmp.Compare(a.TraceID, b.TraceID),
		cmp.Compare(a.SpanID, b.SpanID),
	)
}

// associateRoutes gives a worker selection the phase of the route that
// immediately follows it under the same trace and parent, when the route
// starts after the selection ends and records a phase. The selection span
// itself never records its phase, so this association is labeled inferred.
func (j *joiner) associateRoutes(r *finishing) {
	type family struct{ trace, parent string }
	groups := map[family][]int{}
	var order []family
	for k := range r.Spans {
		sp := &r.Spans[k]
		if sp.Name != "kv_router.select_worker" && sp.Name != "kv_router.route_request" {
			continue
		}
		f := family{sp.TraceID, sp.ParentSpanID}
		if _, ok := groups[f]; !ok {
			order = append(order, f)
		}
		groups[f] = append(groups[f], k)
	}
	for _, f := range order {
		group := groups[f]
		slices.SortStableFunc(group, func(a, b int) int {
			x, y := &r.Spans[a], &r.Spans[b]
			return cmp.Or(cmp.Compare(x.StartNS, y.StartNS), cmp.Compare(x.EndNS, y.EndNS), cmp.Compare(x.SpanID, y.SpanID))
		})
		for n := 0; n+1 < len(group); n++ {
			sel, route := &r.Spans[group[n]], &r.Spans[group[n+1]]
			if sel.Name != "kv_router.select_worker" || route.Name != "kv_router.route_request" || sel.EndNS > route.StartNS {
				continue
			}
			phase, _ := route.Attrs.String("phase")
			if phase == "" {
				continue
			}
			sel.Routing = &model.RoutingContext{Phase: phase, RouteSpanID: route.SpanID, RouteRef: route.Ref, Basis: RoutingBasis}
			j.out.Audit["associated_router_selections"]++
		}
	}
}

// recorded returns a non-empty string attribute.
func recorded(sp *model.Span, key string) (string, bool) {
	s, ok := sp.Attrs.String(key)
	return s, ok && s != ""
}

func requestID(sp *model.Span) string {
	s, _ := recorded(sp, "dynamo.request.id")
	return s
}
