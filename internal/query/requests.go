package query

import (
	"fmt"
	"slices"
	"strings"
)

// requests answers the "requests" kind: requests overlapping the range that
// match every given filter, in (start, id) order, paginated.
func (e *Engine) requests(a Args) (list[RequestItem], error) {
	w, err := e.window(a)
	if err != nil {
		return list[RequestItem]{}, err
	}
	offset, limit := page(a)
	match, err := e.matcher(a, w)
	if err != nil {
		return list[RequestItem]{}, err
	}
	out := list[RequestItem]{Offset: offset, Limit: limit, Range: w.json(), Items: []RequestItem{}}
	e.eachOverlapping(w, func(i int) {
		if !match(i) {
			return
		}
		if out.Total >= offset && len(out.Items) < limit {
			out.Items = append(out.Items, e.item(i))
		}
		out.Total++
	})
	return out, nil
}

// lifecycle answers the "lifecycle" kind: the request's cumulative-milestone
// breakdown, or available: false with empty lists when no supported server
// activity joined it. Until the report's evidence is handed over, a
// request with server evidence has no answer yet: it fails with
// CodeEvidencePending rather than claim no lifecycle.
func (e *Engine) lifecycle(id string) (LifecycleRecord, error) {
	i, ok := e.lookup(id)
	if !ok {
		return LifecycleRecord{}, notFound("Unknown request %q", id)
	}
	sd, pending, err := e.serverSide(i)
	if err == nil && pending {
		return LifecycleRecord{}, &Error{Code: CodeEvidencePending, Message: fmt.Sprintf("request %q: the server evidence is not loaded yet", id)}
	}
	return sd.Lifecycle, err
}

// serverSpans answers the "server_spans" kind: spans no request owns that
// overlap the range, in recorded order, paginated.
func (e *Engine) serverSpans(a Args) (list[ServerSpanRecord], error) {
	w, err := e.window(a)
	if err != nil {
		return list[ServerSpanRecord]{}, err
	}
	offset, limit := page(a)
	ss := &e.c.ServerSpans
	out := list[ServerSpanRecord]{Offset: offset, Limit: limit, Range: w.json(), Items: []ServerSpanRecord{}}
	for k := range ss.Start {
		if ss.Start[k] > w.toNS || ss.End[k] < w.fromNS {
			continue
		}
		if out.Total >= offset && len(out.Items) < limit {
			rec, err := e.serverSpan(k)
			if err != nil {
				return out, err
			}
			out.Items = append(out.Items, rec)
		}
		out.Total++
	}
	return out, nil
}

// eachOverlapping calls f, in (start, id) order, for every request whose
// [start, end] overlaps the window. Requests are sorted by start, so the scan
// begins at the first request that could still reach the window.
func (e *Engine) eachOverlapping(w window, f func(i int)) {
	lo, in, hi := e.overlapBounds(w)
	for i := lo; i < in; i++ {
		if e.r.End[i] >= w.fromNS {
			f(i)
		}
	}
	for i := in; i < hi; i++ {
		f(i)
	}
}

// overlapBounds splits the requests that may overlap w, in start order:
// [lo, in) start before it (within the longest request's duration) and
// overlap it when they end inside or after it; [in, hi) start inside it
// and so all overlap it.
func (e *Engine) overlapBounds(w window) (lo, in, hi int) {
	start := e.r.Start
	lo = searchStart(start, w.fromNS-e.maxRequestDur)
	in = lo + searchStart(start[lo:], w.fromNS)
	hi = in + searchStart(start[in:], w.toNS+1)
	return lo, in, hi
}

// matcher builds the non-range filters shared by requests, sessions and the
// timeline: session, agent, worker, minimum TTFT (unknown TTFT counts as 0)
// and a case-insensitive search over request identities.
func (e *Engine) matcher(a Args, w window) (func(int) bool, error) {
	m, _, err := e.matcherAll(a, w)
	return m, err
}

// matcherAll is matcher that also says whether it passes every request,
// which lets session grouping count whole sessions.
func (e *Engine) matcherAll(a Args, w window) (func(int) bool, bool, error) {
	minTTFT := 0.0 // checked by the op table: finite, >= 0
	if a.MinTTFTms != nil {
		minTTFT = *a.MinTTFTms
	}
	search := strings.ToLower(strings.TrimSpace(a.Search))
	var haystacks []string
	if search != "" {
		haystacks = e.searchTexts()
	}
	r := e.r
	all := a.Session == nil && a.Agent == nil && a.Worker == nil && minTTFT <= 0 && search == ""
	return func(i int) bool {
		if a.Session != nil && r.SessionOf(i) != *a.Session {
			return false
		}
		if a.Agent != nil && r.AgentOf(i) != *a.Agent {
			return false
		}
		if a.Worker != nil && !slices.Contains(e.serverList(i, e.c.Server.Workers), *a.Worker) {
			return false
		}
		if minTTFT > 0 && (!valid(r.TTFT.Valid, i) || r.TTFT.V[i] < minTTFT) {
			return false
		}
		if search != "" && !strings.Contains(haystacks[i], search) {
			return false
		}
		return true
	}, all, nil
}

func valid(v []bool, i int) bool { return v == nil || v[i] }
