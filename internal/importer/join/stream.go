package join

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dsight/dsight/internal/model"
)

// Stream is the join taken in passes over the spans, so that a build need
// not hold every span at once; Join is a Stream over spans in memory.
//
//  1. Link every span, in input order: traces are linked to requests.
//  2. Route every span, in the same order: the request it joins (Owner
//     answers the same without counting), or Unowned/Dropped. The caller
//     groups spans by owner, for example in buckets of request indices.
//  3. AttachWorkerLogs, once.
//  4. Finish each range of requests with the spans they own; ranges may
//     come in any order, and each request's evidence is final when its
//     range is.
//  5. Result, once every range is finished: the audit counts all of them.
//
// What it holds between passes is per request and per trace (bridges,
// trace owners, worker-log records, the process epochs the spans of each
// request record per host and role), never per span.
type Stream struct {
	j *joiner
	// procs[k] is what the spans joining a request record as their process
	// epoch for one host, role and request id: spanProcess without spans.
	procs procTable
	// strs numbers the strings procs keeps, which keeps its keys small:
	// hosts and roles repeat across requests, and the spans they come
	// from may live in a buffer the caller reuses.
	strs  map[string]uint32
	names []string // by number
	// mapped has bit i set when an Engine ID map names request i: only
	// then is the process its spans record asked for (spanProcess), so
	// only then is it kept in procs.
	mapped []uint64
	known  map[hostRole][]string
	audit  struct{ invalid, outside, unowned, joined int64 }
}

// Owner values other than a request index.
const (
	Unowned = -1 // a valid span in the window that no request owns
	Dropped = -2 // an inverted span, or one outside the window
)

// procKey names a request, host and role, and the Dynamo request id the
// span records: rid is 0 for none, else 1 + its index in the request's
// server ids (a span joined by its request id records one of them), so
// that no request id is held twice.
type procKey struct {
	request, host, role, rid uint32
}

type procState struct {
	process  uint32
	conflict bool
}

type hostRole struct{ host, role string }

// NewStream takes the clients and the evidence other than spans (in.Spans
// is ignored), and joins the bridges.
func NewStream(clients []model.ClientTiming, in Input) (*Stream, error) {
	in.Spans = nil
	j := &joiner{
		in:         &in,
		out:        &Joined{Audit: map[string]int64{}},
		reqs:       make([]request, len(clients)),
		byClient:   make(map[string]int, len(clients)),
		byServer:   make(map[string]int, in.Bridges.Len()),
		traceOwner: newTraceOwners(),
	}
	for i, c := range clients {
		if _, dup := j.byClient[c.ID]; dup {
			return nil, fmt.Errorf("lifecycle: duplicate client request id %q", c.ID)
		}
		j.byClient[c.ID] = i
		j.reqs[i].Client = c
	}
	if err := j.bridge(); err != nil {
		return nil, err
	}
	// Bridged: the requests keep what the finish needs of each bridge (its
	// server id and line), so the bridges themselves need not outlive it.
	j.in.Bridges = Bridges{}
	j.byClient = nil // only bridging looks requests up by client id
	s := &Stream{j: j, procs: newProcTable(), strs: map[string]uint32{}, mapped: make([]uint64, (len(clients)+63)/64)}
	for _, wl := range in.WorkerLogs {
		for k := range wl.EngineMaps {
			if i, ok := j.byServer[wl.EngineMaps[k].ServerID]; ok {
				s.mapped[i/64] |= 1 << (i % 64)
			}
		}
	}
	return s, nil
}

// Link records which request the span's trace belongs to.
func (s *Stream) Link(sp *model.Span) {
	if sp.EndNS < sp.StartNS {
		return
	}
	s.LinkID(sp.TraceID, requestID(sp))
}

// LinkID is Link for a valid span of trace traceID that records Dynamo
// request id requestID (LinkRequestID): a caller that saw every span
// already may link each distinct pair once, in any order, and skip a
// pass; the trace owners come out the same.
func (s *Stream) LinkID(traceID, requestID string) {
	i, ok := s.j.byServer[requestID]
	if !ok {
		return
	}
	s.j.traceOwner.link(traceID, i)
}

// LinkRequestID is the Dynamo request id by which Link links a span's
// trace ("" for none: a bridge always names a UUID, so "" links nothing).
func LinkRequestID(sp *model.Span) string { return requestID(sp) }

// Owner is the request index span sp joins once every span is linked, or
// Unowned or Dropped. It counts nothing.
func (s *Stream) Owner(sp *model.Span) int {
	owner, _ := s.owner(sp)
	return owner
}

// OwnerOf is Owner with how the span joins its owner (model.JoinRequestID
// or model.JoinTraceID; "" when it has none). Once every span is linked it
// only reads what linking built, so, unlike Link, Route and Finish, it may
// be called from several goroutines at once and beside Route or Finish:
// a caller finds the owners of a bucket of spans while the spans of the
// bucket before are routed or finished.
func (s *Stream) OwnerOf(sp *model.Span) (owner int, join string) {
	return s.owner(sp)
}

func (s *Stream) owner(sp *model.Span) (int, string) {
	if sp.EndNS < sp.StartNS {
		return Dropped, ""
	}
	if w := s.j.in.Window; w != nil && (sp.EndNS < w.StartNS || sp.StartNS > w.EndNS) {
		return Dropped, ""
	}
	rid := requestID(sp)
	if i, ok := s.j.byServer[rid]; ok {
		return i, model.JoinRequestID
	}
	if rid == "" {
		if i, ok := s.j.traceOwner.owner(sp.TraceID); ok && i >= 0 {
			return i, model.JoinTraceID
		}
	}
	return Unowned, ""
}

// Route counts span sp and returns its owner, as Owner does; server
// reports an unowned span, which the caller keeps, in input order, as a
// server span (Joined.ServerSpans): every imported span stays queryable,
// router internals, http-request and request.lifecycle as much as the
// lifecycle activities (server_spans, reference §3.9).
func (s *Stream) Route(sp *model.Span) (owner int, server bool) {
	owner, _ = s.owner(sp)
	return owner, s.RouteOwned(sp, owner)
}

// RouteOwned is Route for a span whose owner the caller found (Owner or
// OwnerOf), in the same order Route would be called.
func (s *Stream) RouteOwned(sp *model.Span, owner int) (server bool) {
	switch {
	case owner >= 0:
		s.audit.joined++
		if s.mapped[owner/64]&(1<<(owner%64)) == 0 {
			break // no Engine ID map will ask for its spans' process
		}
		var id identity
		fillIdentity(&id, sp)
		if id.hostRecorded && id.processRecorded {
			rid, _ := s.rid(owner, id.request)
			k := procKey{uint32(owner), s.intern(id.host), s.intern(id.role), rid}
			p := s.intern(id.process)
			if st, ok := s.procs.get(k); !ok {
				s.procs.put(k, procState{process: p})
			} else if st.process != p && !st.conflict {
				st.conflict = true
				s.procs.put(k, st)
			}
		}
	case owner == Unowned:
		s.audit.unowned++
		server = true
	case sp.EndNS < sp.StartNS:
		s.audit.invalid++
	default:
		s.audit.outside++
	}
	return server
}

// rid is procKey.rid for request i and request id v; ok is false when
// v is none of i's server ids.
func (s *Stream) rid(i int, v string) (rid uint32, ok bool) {
	if v == "" {
		return 0, true
	}
	k := slices.IndexFunc(s.j.reqs[i].bridges, func(b bridged) bool { return b.id == v })
	return uint32(k + 1), k >= 0
}

func (s *Stream) intern(v string) uint32 {
	if n, ok := s.strs[v]; ok {
		return n
	}
	n := uint32(len(s.names))
	v = strings.Clone(v)
	s.strs[v], s.names = n, append(s.names, v)
	return n
}

// spanProcess is the unique process epoch that request i's spans record
// for a host and role, counting spans of this server id, or spans without
// an id when the request has only this one.
func (s *Stream) spanProcess(i int, host, role, serverID string) *string {
	h, okh := s.strs[host]
	r, okr := s.strs[role]
	if !okh || !okr {
		return nil // no span recorded this host and role
	}
	found := -1
	consider := func(id string) bool {
		rid, ok := s.rid(i, id)
		if !ok {
			return true
		}
		st, ok := s.procs.get(procKey{uint32(i), h, r, rid})
		if !ok {
			return true
		}
		if st.conflict || (found >= 0 && uint32(found) != st.process) {
			return false
		}
		found = int(st.process)
		return true
	}
	if !consider(serverID) {
		return nil
	}
	if len(s.j.reqs[i].bridges) == 1 && serverID != "" && !consider("") {
		return nil
	}
	if found < 0 {
		return nil
	}
	p := s.names[found]
	return &p
}

// AttachWorkerLogs turns the worker-log records into bindings and engine
// entries; call it once, after every span is routed.
func (s *Stream) AttachWorkerLogs() {
	s.j.count("invalid_spans", s.audit.invalid)
	s.j.count("out_of_window_spans", s.audit.outside)
	s.j.count("unjoined_spans", s.audit.unowned)
	s.j.count("joined_spans", s.audit.joined)
	s.j.attachWorkerLogs(s.spanProcess)
	s.known = s.j.knownWorkers()
	// Attached: the requests hold their bindings and engine entries, so
	// the worker-log records (two or more a request) need not wait for
	// every range to finish.
	s.j.in.WorkerLogs = nil
}

// Finish joins requests lo..hi-1 with the spans they own (each span's
// owner, as Route returned it, in owners) and returns their evidence,
// which points at the spans given.
func (s *Stream) Finish(lo, hi int, spans []*model.Span, owners []int) ([]model.RequestEvidence, error) {
	joined := make([]model.JoinedSpan, len(spans))
	for k := range spans {
		if i := owners[k]; i < lo || i >= hi {
			return nil, fmt.Errorf("join: span %s is owned by request %d, outside %d..%d", spans[k].Ref, i, lo, hi-1)
		}
		_, kind := s.owner(spans[k])
		joined[k] = model.JoinedSpan{Span: spans[k], Join: kind}
	}
	return s.FinishOwned(lo, hi, joined, owners)
}

// FinishOwned is Finish for spans whose owners and join kinds the caller
// found (OwnerOf): spans[k] is a span with only its Join set, owned by
// request owners[k].
func (s *Stream) FinishOwned(lo, hi int, spans []model.JoinedSpan, owners []int) ([]model.RequestEvidence, error) {
	j := s.j
	counts := make([]int, hi-lo)
	total := 0
	for k, i := range owners {
		if i < lo || i >= hi {
			return nil, fmt.Errorf("join: span %s is owned by request %d, outside %d..%d", spans[k].Span.Ref, i, lo, hi-1)
		}
		counts[i-lo]++
		total++
	}
	all := make([]model.JoinedSpan, 0, total)
	idents := make([]identity, total)
	fin := make([]finishing, hi-lo)
	for n, c := range counts {
		f := &fin[n]
		f.Spans = all[len(all) : len(all) : len(all)+c]
		f.idents = idents[len(all) : len(all)+c : len(all)+c]
		all = all[:len(all)+c]
	}
	for k := range spans {
		f := &fin[owners[k]-lo]
		f.Spans = append(f.Spans, spans[k])
	}
	out := make([]model.RequestEvidence, hi-lo)
	for n := range fin {
		f, r := &fin[n], &j.reqs[lo+n]
		f.Client, f.Engine = r.Client, r.Engine
		f.ServerIDs, f.BridgeEvidence = r.serverIDs()
		if len(r.bridges) > 1 {
			f.Issues = []string{MultipleServerIDsIssue}
		}
		slices.SortStableFunc(f.Spans, compareSpans)
		j.associateRoutes(f)
		j.expand(f, r)
		j.assignWorkers(f, s.known)
		out[n] = f.RequestEvidence
		*r = request{} // final: the stream keeps nothing of it
	}
	return out, nil
}

// Result is what the join counted, with the server spans the caller kept
// (those Route reported, in input order).
func (s *Stream) Result(serverSpans []model.JoinedSpan) *Joined {
	s.j.out.ServerSpans = serverSpans
	return s.j.out
}
