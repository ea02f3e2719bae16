package synth

import (
	"math"
	"math/rand/v2"
)

// A request's server-side timeline: every span, log line and engine stage
// of one Dynamo request (an attempt), placed inside the client's
// [start, first token, end]. It is a pure function of the plan, the
// assignment and the request's own timeline stream, so every writer that
// recomputes it gets the same times.

// interval is a span of absolute epoch nanoseconds.
type interval struct{ start, end int64 }

// Roles of an attempt's worker stages.
const (
	rolePrefill = 0
	roleDecode  = 1
)

// Span slots of an attempt, in the order their ids are drawn.
const (
	spanHTTP = iota
	spanLifecycle
	spanPrep
	spanStream
	spanRole // first of the per-role slots: select, hashes, match, route, admission, operation, dispatch, pump
)

const roleSpans = 8
const spanSlots = spanRole + 2*roleSpans

// stage is one role's part of an attempt.
type stage struct {
	sel, hashes, match, route, admit, op, dispatch, pump interval
	// Engine stage boundaries as the engine records them.
	entry        int64 // the request reaches the engine (dispatch end)
	bootstrapEnd int64
	allocEnd     int64 // decode: KV space reserved
	transferEnd  int64 // prefill: KV sent; decode: KV received
	queueEnd     int64 // forward starts
	forwardEnd   int64 // prefill: forward done; decode: last token
	firstToken   int64 // decode: first token generated
	skew         int64 // added to this stage's worker spans (oddSkew)
}

// attempt is one Dynamo request serving a client request.
type attempt struct {
	uuid    string
	trace   [2]uint64
	ids     [spanSlots]uint64
	ops     [3]string // dynamo.operation.id of the frontend, prefill and decode waves
	recv    int64     // the frontend receives the request
	http    interval  // http-request span; its end is when the response completes
	life    interval  // request.lifecycle
	prep    interval
	stream  interval // response.streaming (frontend): first SSE event to completion
	stages  [2]stage
	cut     int64  // spans are clipped here; math.MaxInt64 when the attempt completes
	cutMsg  string // status message of clipped spans
	outcome string // success, cancelled or failed
	odd     oddity
}

// clip returns iv as recorded for an attempt cut short: dropped when it
// starts at or after the cut, ended at the cut (with an error) when it
// straddles it.
func (a *attempt) clip(iv interval) (out interval, keep, errored bool) {
	if iv.start >= a.cut {
		return iv, false, false
	}
	if iv.end > a.cut {
		return interval{iv.start, a.cut}, true, true
	}
	return iv, true, false
}

// received reports whether the frontend got the attempt before the client
// gave up; an attempt it never received leaves no server evidence.
func (a *attempt) received() bool { return a.recv < a.cut }

// reached reports whether a role's stage began before the cut.
func (a *attempt) reached(role int) bool { return a.stages[role].sel.start < a.cut }

// admitted reports whether a worker admitted the attempt (and so logged a
// binding).
func (a *attempt) admitted(role int) bool { return a.stages[role].admit.start < a.cut }

// finished reports whether a role's engine completed its work, which is
// when SGLang logs ReqTimeStats.
func (a *attempt) finished(role int) bool {
	s := &a.stages[role]
	if role == rolePrefill {
		return s.transferEnd <= a.cut
	}
	return s.forwardEnd <= a.cut
}

// timeliner computes attempts; it reuses its stream and scratch space.
type timeliner struct {
	sv  *serving
	pcg *rand.PCG
	rng *rand.Rand
	pts [len(stepWeights) + 1]int64
}

func newTimeliner(sv *serving) *timeliner {
	pcg := rand.NewPCG(0, 0)
	return &timeliner{sv: sv, pcg: pcg, rng: rand.New(pcg)}
}

// stepWeights are the relative lengths of the steps from the frontend
// receiving a request to its first SSE event, apart from the prefill queue
// and forward, which the request's load decides.
var stepWeights = [...]float64{
	0.6, 2.5, 0.8, 0.2, 0.4, 0.3, 0.5, // recv, preprocess, prefill select, route, admission, dispatch, bootstrap
	0, 0, // prefill queue, prefill forward
	1.5, 0.3, 0.8, 0.2, 0.4, 0.3, // KV send, prefill close, decode select, route, admission, dispatch
	0.3, 0.3, 1.2, 0.4, 1.5, 0.5, // decode bootstrap, alloc wait, KV receive, queue, first token, first SSE
}

const (
	stepQueue   = 7
	stepForward = 8
)

// attempts returns the Dynamo requests that served request i (two for a
// retried request), appended to buf.
func (tl *timeliner) attempts(i int, buf []attempt) []attempt {
	p := tl.sv.p
	r := &p.Requests[i]
	s := &tl.sv.reqs[i]
	tl.pcg.Seed(p.Config.Seed, timelineStream^uint64(r.Seq))
	ttft := r.TTFTNS
	switch r.Outcome {
	case Completed:
		if s.odd == oddRetry {
			first := tl.layout(r, s, s.first, r.StartNS, ttft, r.EndNS)
			first.cut, first.cutMsg, first.outcome = r.StartNS+3*ttft/10, "worker connection lost", "failed"
			first.http.end = first.cut + (first.stages[rolePrefill].sel.end-first.stages[rolePrefill].sel.start)/2
			first.life.end = first.http.end
			second := r.StartNS + 33*ttft/100
			return append(buf, first, tl.layout(r, s, s.uuid, second, r.StartNS+ttft-second, r.EndNS))
		}
		a := tl.layout(r, s, s.uuid, r.StartNS, ttft, r.EndNS)
		a.odd = s.odd
		switch s.odd {
		case oddSkew:
			a.stages[rolePrefill].skew = ttft
		case oddNonMonotonic:
			d, prep := &a.stages[roleDecode], a.prep
			d.admit = interval{prep.end + (a.stages[rolePrefill].sel.start-prep.end)/3, a.stages[rolePrefill].sel.end}
		}
		return append(buf, a)
	case Cancelled:
		// Laid out as if it had completed, then cut where the client gave up.
		a := tl.layout(r, s, s.uuid, r.StartNS, ttft, r.EndNS+ttft)
		a.cut, a.cutMsg, a.outcome = r.EndNS, "client disconnected", "cancelled"
		a.http.end = min(a.http.end, r.EndNS)
		a.life.end = min(a.life.end, r.EndNS)
		return append(buf, a)
	default:
		// Failed once prefill finished, while routing to decode.
		a := tl.layout(r, s, s.uuid, r.StartNS, r.EndNS-r.StartNS, r.EndNS)
		d := &a.stages[roleDecode]
		a.cut = d.sel.start + (d.sel.end-d.sel.start)/2
		a.cutMsg, a.outcome = errorKinds[r.Error].typ, "failed"
		return append(buf, a)
	}
}

// layout places one attempt received at start, whose first SSE event is
// due before start+ttft and whose client sees the last token at end.
func (tl *timeliner) layout(r *Request, s *serve, uuid string, start, ttft, end int64) attempt {
	rng := tl.rng
	a := attempt{uuid: uuid, cut: math.MaxInt64, outcome: "success"}
	a.trace = [2]uint64{rng.Uint64(), rng.Uint64()}
	for k := range a.ids {
		a.ids[k] = rng.Uint64() | 1
	}
	for k := range a.ops {
		a.ops[k] = newUUID(rng)
	}

	// The prefill forward takes the share of TTFT the scheduler's model
	// gives uncached prompt tokens; the queue takes the rest.
	prefillMS := 18 + 0.07*float64(r.InputTokens-r.CachedTokens) + 0.0015*float64(r.CachedTokens)
	share := min(0.7, prefillMS/max(1e-3, float64(ttft)/1e6)) * 0.85
	var small float64
	var w [len(stepWeights)]float64
	for k, base := range stepWeights {
		w[k] = base * lognormal(rng, 1, 0.25)
		small += w[k]
	}
	w[stepForward] = small / 0.15 * share
	w[stepQueue] = small / 0.15 * (0.85 - share)
	var total float64
	for _, x := range w {
		total += x
	}
	span := float64(ttft) * 0.97
	pts := &tl.pts
	pts[0] = start
	var cum float64
	for k, x := range w {
		cum += x
		pts[k+1] = max(pts[k]+1, start+int64(span*cum/total))
	}
	p := func(k int) int64 { return pts[k] }
	frac := func(iv interval, num, den int64) int64 { return iv.start + (iv.end-iv.start)*num/den }

	a.recv = p(1)
	a.prep = interval{p(1) + (p(2)-p(1))/20, p(2)}
	firstSSE := p(21)
	net := min(150_000, max(4, (end-firstSSE)/3))
	serverEnd := end - net
	x := net / 4

	pf := &a.stages[rolePrefill]
	pf.sel = interval{p(2), p(3)}
	pf.route = interval{p(4), p(11)}
	pf.admit = interval{frac(interval{p(4), p(5)}, 1, 5), p(5)}
	pf.dispatch = interval{p(5), p(6)}
	pf.entry, pf.bootstrapEnd, pf.queueEnd, pf.forwardEnd, pf.transferEnd = p(6), p(7), p(8), p(9), p(10)
	pf.op = interval{pf.admit.start, frac(interval{p(10), p(11)}, 3, 4)}
	pf.pump = interval{p(6), frac(interval{p(10), p(11)}, 1, 2)}

	dc := &a.stages[roleDecode]
	dc.sel = interval{p(11), p(12)}
	dc.route = interval{p(13), serverEnd}
	dc.admit = interval{frac(interval{p(13), p(14)}, 1, 5), p(14)}
	dc.dispatch = interval{p(14), p(15)}
	dc.entry, dc.bootstrapEnd, dc.allocEnd, dc.transferEnd, dc.queueEnd, dc.firstToken = p(15), p(16), p(17), p(18), p(19), p(20)
	dc.forwardEnd = serverEnd - 3*x
	dc.op = interval{dc.admit.start, serverEnd - x}
	dc.pump = interval{p(15), serverEnd - 2*x}
	for _, st := range []*stage{pf, dc} {
		st.hashes = interval{frac(st.sel, 1, 10), frac(st.sel, 4, 10)}
		st.match = interval{frac(st.sel, 5, 10), frac(st.sel, 9, 10)}
	}

	a.stream = interval{firstSSE, serverEnd - x}
	a.life = interval{a.recv, serverEnd}
	a.http = interval{a.recv, serverEnd + x}
	return a
}

// attemptCache keeps the attempts of recently rendered requests. Log lines
// are written in time order, so the requests in flight at any moment are
// rendered interleaved; direct-mapped slots keyed by request index spare
// recomputing them for every line.
type attemptCache struct {
	tl    *timeliner
	slots [512]struct {
		req int
		att []attempt
	}
}

func newAttemptCache(sv *serving) *attemptCache {
	c := &attemptCache{tl: newTimeliner(sv)}
	for i := range c.slots {
		c.slots[i].req = -1
	}
	return c
}

// get returns request i's attempts; they stay valid until the next get.
func (c *attemptCache) get(i int) []attempt {
	s := &c.slots[i%len(c.slots)]
	if s.req != i {
		s.req = i
		s.att = c.tl.attempts(i, s.att[:0])
	}
	return s.att
}
