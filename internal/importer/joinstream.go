package importer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/importer/join"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/spanspill"
)

// ownedSpansPerBucket sizes the owner buckets of the streamed join: each
// holds the spans of a contiguous range of requests, finished at once.
const ownedSpansPerBucket = 1024

// joinStreamed is the join: the spans wait in the spill, taken
// through join.Stream in passes over the de-duplication buckets:
//
//  1. link every unique span's trace to its request (from the pairs the
//     check pass noted, otelSpill.links);
//  2. route every span, its owner found as its bucket is read: to the
//     owner bucket of its request's range, to the server spans (a bucket
//     of their own, sorted back into input order), or nowhere (counted),
//     its stored bytes copied;
//  3. finish each range in request order, handing each request with
//     evidence to its chunk (catalog.EvidenceChunks), which is encoded
//     on another goroutine once full, and checking each chunk's size, so
//     no request's records outlive their chunk's encoding.
//
// The dataset, counters and warnings are the in-memory join's
// (join.Join), byte for byte; the evidence is Dataset.StreamedEvidence.
func (res *Result) joinStreamed(d *model.Dataset, ev *serverEvidence, requests []model.Request, originNS, lastNS int64) error {
	o := ev.otel
	if o == nil { // no OTel export: bridges and worker-log records only
		store, err := spanspill.New(ev.spillDir, 1)
		if err != nil {
			return err
		}
		o = &otelSpill{store: store, file: map[string]int{}}
	}
	defer o.store.Close()
	in := ev.in
	in.Window = &join.Window{StartNS: originNS, EndNS: lastNS}
	st, err := join.NewStream(clientTimings(d, requests), in)
	if err != nil {
		return err
	}
	// The stream keeps each client's timing; only their count is read here.
	clients := len(requests)
	// The stream bridged the requests: the bridges are dropped here too,
	// as the worker-log records are once attached, so neither is held
	// through the passes (dropServerLogs).
	decode := newDecodeCounter(&in)
	dropServerLogs(ev, &in, false)
	// Each pass reads the buckets back; spans are cut to the report's
	// bounds as readOTelStreamed counted (resources and scopes are cut in
	// the spill already).
	// f keeps nothing of a span but copies (Link and Route clone what
	// they keep; the spill's Add encodes), so the buffers are recycled.
	bufs := newSpillBuffers()
	type read struct {
		spans  []model.Span
		owners []int    // by span, once linked (owners)
		joins  []string // how each owned span joins its owner
		buf    *spanspill.ReadBuffer
	}
	// each reads the buckets ahead on other goroutines, and with owners
	// set, finds the owner of each span there too (Stream.OwnerOf reads
	// only what linking built), so that f, on this goroutine, routes.
	owners := false
	each := func(f func(buf *spanspill.ReadBuffer, k int, sp *model.Span, owner int, join string) error) error {
		return inOrder(o.store.Buckets(), readAhead(), func(b int) (read, error) {
			buf := bufs.get()
			spans, err := o.uniqueAgain(b, buf)
			r := read{spans: spans, buf: buf}
			for k := range spans {
				truncateAttrs(spans[k].Attrs)
			}
			if owners && err == nil {
				r.owners, r.joins = make([]int, len(spans)), make([]string, len(spans))
				for k := range spans {
					r.owners[k], r.joins[k] = st.OwnerOf(&spans[k])
				}
			}
			return r, err
		}, func(_ int, r read) error {
			defer bufs.put(r.buf)
			for k := range r.spans {
				owner, join := 0, ""
				if r.owners != nil {
					owner, join = r.owners[k], r.joins[k]
				}
				if err := f(r.buf, k, &r.spans[k], owner, join); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if o.links != nil {
		// The check pass noted every pair a link pass would link.
		st.LinkAll(o.links)
		o.links = nil
	} else if err := each(func(_ *spanspill.ReadBuffer, _ int, sp *model.Span, _ int, _ string) error { st.Link(sp); return nil }); err != nil {
		return err
	}
	owners = true
	buckets := int(min(max(o.spans/ownedSpansPerBucket, 1), 1024))
	per := max(1, (clients+buckets-1)/buckets)
	buckets = (clients + per - 1) / per
	// The owned and server spans are copied as the spill stored them
	// (Store.Share): uncut, so each is cut again once read back. An owned
	// span's tag is its owner and how it joins it (ownerTag), which the
	// finish pass reads rather than asking the stream again.
	ownedStore, err := o.store.Share(ev.spillDir, max(buckets, 1))
	if err != nil {
		return err
	}
	defer ownedStore.Close()
	servers, err := o.store.Share(ev.spillDir, 1)
	if err != nil {
		return err
	}
	defer servers.Close()
	if err := each(func(buf *spanspill.ReadBuffer, k int, sp *model.Span, owner int, join string) error {
		switch server := st.RouteOwned(sp, owner); {
		case owner >= 0:
			return ownedStore.AddRecord(owner/per, buf, k, sp, ownerTag(owner%per, join))
		case server:
			return servers.AddRecord(0, buf, k, sp, 0)
		}
		return nil
	}); err != nil {
		return err
	}
	st.AttachWorkerLogs()
	dropServerLogs(ev, &in, true)

	// The deflated chunks wait on disk beside the spans (--spill-dir).
	chunks := catalog.EvidenceChunks{SpillDir: ev.spillDir}
	if ev.tap != nil {
		ev.tap.BeginEvidence(originNS, d.Sources)
	}
	var available int64
	// Each range's spans are read back, and their owners found, ahead on
	// other goroutines; this one finishes the ranges in order and hands
	// their evidence over, which EvidenceChunks encodes and deflates on
	// other goroutines again, so the pass keeps every core busy.
	// A range's read buffer goes back to the pool once the chunks holding
	// its records are encoded (EvidenceChunks.Then) and a tap, if any, is
	// done with them (EvidenceReleaser); a tap that cannot say so may hold
	// them as long as it likes.
	rel, _ := ev.tap.(EvidenceReleaser)
	pool := newFinishBuffers(ev.tap == nil || rel != nil)
	if err := inOrder(buckets, readAhead(), func(b int) (*finishBuffer, error) {
		r := pool.get()
		spans, err := ownedStore.ReadInto(b, &r.read)
		if err != nil {
			return nil, err
		}
		r.spans, r.owners = grow(r.spans, len(spans)), grow(r.owners, len(spans))
		for k := range spans {
			truncateAttrs(spans[k].Attrs)
			at, join := fromOwnerTag(r.read.Tag(k))
			r.spans[k] = model.JoinedSpan{Span: &spans[k], Join: join}
			r.owners[k] = b*per + at
		}
		return r, nil
	}, func(b int, r *finishBuffer) error {
		lo, hi := b*per, min(clients, (b+1)*per)
		evs, err := st.FinishOwned(lo, hi, r.spans, r.owners)
		if err != nil {
			return err
		}
		defer func() {
			release := func() { pool.put(r) }
			if rel != nil {
				release = onSecondCall(release)
				rel.Then(release)
			}
			chunks.Then(release)
		}()
		for n := range evs {
			j, i := &evs[n], lo+n
			decode.note(j)
			if len(j.ServerIDs) == 0 && len(j.Spans) == 0 && len(j.Bindings) == 0 && len(j.Engine) == 0 {
				continue
			}
			has := lifecycle.Available(j)
			k := chunks.Add(j)
			if ev.tap != nil {
				ev.tap.Evidence(k, ev.ordinals[i], j)
			}
			requests[i].Server = &model.RequestServer{
				ServerIDs: cloneStrings(j.ServerIDs), Workers: cloneStrings(j.Workers),
				SpanCount: len(j.Spans), LifecycleAvailable: has, Evidence: k,
			}
			for _, issue := range j.Issues {
				requests[i].Issues = append(requests[i].Issues, strings.Clone(issue))
			}
			if has {
				available++
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if ev.tap != nil {
		ev.tap.EndEvidence()
	}
	// The server spans, in the order join keeps them: the input's.
	var serverSpans []model.JoinedSpan
	if servers.Len(0) > 0 {
		spans, err := servers.Read(0)
		if err != nil {
			return err
		}
		for k := range spans {
			truncateAttrs(spans[k].Attrs)
		}
		slices.SortFunc(spans, func(a, b model.Span) int { return o.order(&a).compare(o.order(&b)) })
		serverSpans = make([]model.JoinedSpan, len(spans))
		for k := range spans {
			serverSpans[k] = model.JoinedSpan{Span: &spans[k]}
		}
	}
	joined := st.Result(serverSpans)
	for k, v := range joined.Audit {
		d.Audit[k] += v
	}
	if n := joined.Audit["unjoined_worker_bindings"] + joined.Audit["unjoined_engine_maps"]; n > 0 && len(requests) > 0 {
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf(unjoinedWorkerWarning, n, joined.FirstUnjoined))
	}
	if decode.n > 0 {
		d.Audit["requests_without_decode_worker"] = decode.n
		d.Meta.Warnings = append(d.Meta.Warnings, fmt.Sprintf(noDecodeWorkerWarning, decode.n, decode.first))
	}
	if available > 0 {
		d.Audit["clients_with_lifecycle"] += available
	}
	stream := chunks.Stream()
	if k, size, over := stream.ChunkOverLimit(); over {
		big, n := stream.BigSpan(k)
		return catalog.ChunkLimitError(k, size, big, n)
	}
	d.StreamedEvidence = stream
	d.ServerSpans = joined.ServerSpans
	return nil
}

// ownerTag is the tag of an owned span in its owner bucket: its owner's
// place in the bucket's range, and whether it joins by trace id rather
// than by Dynamo request id (the two ways Stream.OwnerOf reports).
func ownerTag(at int, join string) uint64 {
	tag := uint64(at) << 1
	if join == model.JoinTraceID {
		tag |= 1
	}
	return tag
}

// fromOwnerTag reads what ownerTag wrote.
func fromOwnerTag(tag uint64) (at int, join string) {
	if tag&1 != 0 {
		return int(tag >> 1), model.JoinTraceID
	}
	return int(tag >> 1), model.JoinRequestID
}

// decodeCounter counts the bridged requests of a disaggregated run (one
// with a decode worker log) that name no decode worker (namesDecode), one
// finished request at a time, and the first such request's client row.
type decodeCounter struct {
	disaggregated bool
	n             int64
	first         string
}

func newDecodeCounter(in *join.Input) *decodeCounter {
	c := &decodeCounter{}
	for _, wl := range in.WorkerLogs {
		c.disaggregated = c.disaggregated || wl.Name.Role == model.RoleDecode
	}
	return c
}

func (c *decodeCounter) note(r *model.RequestEvidence) {
	if !c.disaggregated || len(r.ServerIDs) == 0 || namesDecode(r) {
		return
	}
	if c.n++; c.first == "" {
		c.first = fmt.Sprintf("%s:%d", r.Client.Evidence.Path, r.Client.Evidence.Line)
	}
}

func cloneStrings(s []string) []string {
	out := make([]string, len(s))
	for k, v := range s {
		out[k] = strings.Clone(v)
	}
	return out
}
