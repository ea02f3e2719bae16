package query

import (
	"slices"
	"sort"
)

// SessionItem is a session as listSessions shows it.
type SessionItem struct {
	ID           string      `json:"id"`
	Start        float64     `json:"start"`
	End          float64     `json:"end"`
	Requests     []string    `json:"requests"`
	SourceTraces []string    `json:"source_traces"`
	Agents       []AgentItem `json:"agents"`
	// Matching counts the session's requests that overlap the range and pass the filters.
	Matching  int      `json:"matching"`
	MaxTTFTms *float64 `json:"max_ttft_ms"`
}

// AgentItem is one agent of a session.
type AgentItem struct {
	ID       string   `json:"id"`
	Parent   *string  `json:"parent"`
	Depth    int64    `json:"depth"`
	Label    string   `json:"label"`
	Requests []string `json:"requests"`
}

// sessionMatch is a session with the number of its requests that passed
// the filters; the requests themselves are collected only for the sessions
// a page shows (see matchingRequests).
type sessionMatch struct {
	index   int
	count   int
	maxTTFT *float64
	// maxLatency is the longest matching request (end − start, ns).
	maxLatency int64
}

// sessionsPage answers for one page of the filtered session list without
// listing it: walked in start order (pageByStart) or ranked in one walk
// (pageRanked); a page deep in a ranking, or sessions not stored by start,
// are sliced from the sorted list. Its focus is the session holding
// request a.ID.
func (e *Engine) sessionsPage(a Args) (sessionPage, window, int, int, error) {
	offset, limit := page(a)
	focus := -1
	if ri, ok := e.lookup(a.ID); ok {
		focus = int(e.r.SessionIndex[ri])
	}
	byStart := a.Sort == "" || a.Sort == "start"
	if e.spansByStart && (byStart || offset+limit <= maxRankedPage) {
		w, err := e.window(a)
		if err != nil {
			return sessionPage{}, w, 0, 0, err
		}
		match, all, err := e.matcherAll(a, w)
		if err != nil {
			return sessionPage{}, w, 0, 0, err
		}
		less, err := sessionOrder(a.Sort)
		if err != nil {
			return sessionPage{}, w, 0, 0, err
		}
		if byStart {
			return e.pageByStart(w, match, all, offset, limit, focus), w, offset, limit, nil
		}
		return e.pageRanked(w, match, all, less, offset, limit, focus), w, offset, limit, nil
	}
	matches, w, err := e.matchingSessions(a)
	if err != nil {
		return sessionPage{}, w, 0, 0, err
	}
	pg := sessionPage{total: len(matches), focus: -1}
	for k, m := range matches {
		pg.requests += m.count
		if m.index == focus {
			pg.focus = k
		}
	}
	if offset < len(matches) {
		pg.items = matches[offset:min(len(matches), offset+limit)]
	}
	return pg, w, offset, limit, nil
}

// matchingSessions groups the requests that overlap the window and pass the
// filters by session, ordered by sort: "start" (session start), "ttft"
// (longest matching TTFT first) or "count" (most matching requests first).
func (e *Engine) matchingSessions(a Args) ([]sessionMatch, window, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, w, err
	}
	// A page redraw asks for the same grouping several times in a row (to
	// find the selected request's page, then to draw it): remember the last.
	key := sessionsKey{w.fromNS, w.toNS, a.Search, a.Sort, deref(a.Session), deref(a.Agent), deref(a.Worker), derefF(a.MinTTFTms)}
	e.lastMu.Lock()
	if e.last != nil && e.last.key == key {
		out := e.last.matches
		e.lastMu.Unlock()
		return out, w, nil
	}
	e.lastMu.Unlock()
	out, err := e.groupSessions(a, w)
	if err != nil {
		return nil, w, err
	}
	e.lastMu.Lock()
	e.last = &sessionsCache{key: key, matches: out}
	e.lastMu.Unlock()
	return out, w, nil
}

type sessionsKey struct {
	from, to               int64
	search, sort           string
	session, agent, worker string
	minTTFT                float64
}

type sessionsCache struct {
	key     sessionsKey
	matches []sessionMatch // shared read-only by callers
}

func deref(p *string) string {
	if p == nil {
		return "\x00none"
	}
	return *p
}

func derefF(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

func (e *Engine) groupSessions(a Args, w window) ([]sessionMatch, error) {
	match, all, err := e.matcherAll(a, w)
	if err != nil {
		return nil, err
	}
	var out []sessionMatch
	if e.spansByStart {
		out = e.groupBySession(w, match, all)
	} else {
		out = e.groupByRequest(w, match)
	}
	by, err := sessionOrder(a.Sort)
	if err != nil {
		return nil, err
	}
	if a.Sort == "" || a.Sort == "start" {
		if !e.spansByStart { // the session walk leaves them in start order
			slices.SortFunc(out, func(x, y sessionMatch) int { return x.index - y.index })
		}
	} else {
		sort.Slice(out, func(i, j int) bool { return by(out[i], out[j]) })
	}
	return out, nil
}

// sessionOrder is the listing order named by sort: "start" (session
// start), "ttft" (longest matching TTFT first, unknown last), "latency"
// (longest matching request first) or "count" (most matching requests
// first); ties go by start.
func sessionOrder(sort string) (func(x, y sessionMatch) bool, error) {
	byStart := func(x, y sessionMatch) bool { return x.index < y.index } // sessions are stored by start
	switch sort {
	case "", "start":
		return byStart, nil
	case "ttft":
		return func(x, y sessionMatch) bool {
			switch {
			case x.maxTTFT == nil || y.maxTTFT == nil:
				if (x.maxTTFT == nil) != (y.maxTTFT == nil) {
					return x.maxTTFT != nil
				}
			case *x.maxTTFT != *y.maxTTFT:
				return *x.maxTTFT > *y.maxTTFT
			}
			return byStart(x, y)
		}, nil
	case "latency":
		return func(x, y sessionMatch) bool {
			if x.maxLatency != y.maxLatency {
				return x.maxLatency > y.maxLatency
			}
			return byStart(x, y)
		}, nil
	case "count":
		return func(x, y sessionMatch) bool {
			if x.count != y.count {
				return x.count > y.count
			}
			return byStart(x, y)
		}, nil
	}
	return nil, badArgs("sort must be one of start, ttft, latency, count; got %q", sort)
}

// groupBySession lists the sessions that overlap the window and have a
// matching request, in start order (see sessionMatchAt).
func (e *Engine) groupBySession(w window, match func(int) bool, all bool) []sessionMatch {
	var out []sessionMatch
	e.eachSessionMatch(w, match, all, func(m sessionMatch) { out = append(out, m) })
	return out
}

// eachSessionMatch calls f, in start order, for each session that overlaps
// the window and has a matching request.
func (e *Engine) eachSessionMatch(w window, match func(int) bool, all bool, f func(sessionMatch)) {
	spans := e.sessionSpans
	lo := sort.Search(len(spans), func(s int) bool { return spans[s].start >= w.fromNS-e.maxSessionDur })
	for si := lo; si < len(spans) && spans[si].start <= w.toNS; si++ {
		if m, ok := e.sessionMatchAt(si, w, match, all); ok {
			f(m)
		}
	}
}

// sessionMatchAt counts session si's requests that overlap the window and
// pass the filters. A session wholly inside the window counts all its
// requests when every request passes (its longest TTFT is indexed);
// otherwise only its requests near the window are visited.
func (e *Engine) sessionMatchAt(si int, w window, match func(int) bool, all bool) (sessionMatch, bool) {
	r, sp := e.r, e.sessionSpans[si]
	m := sessionMatch{index: si}
	if sp.end < w.fromNS || sp.start > w.toNS {
		return m, false
	}
	reqs := e.requestsOfSession(si)
	if all && sp.start >= w.fromNS && sp.end <= w.toNS {
		return e.wholeSession(si), true
	}
	// reqs ascend by start: skip those that end before the window,
	// bounded by the longest request.
	k := sort.Search(len(reqs), func(k int) bool { return r.Start[reqs[k]] >= w.fromNS-e.maxRequestDur })
	for ; k < len(reqs) && r.Start[reqs[k]] <= w.toNS; k++ {
		i := int(reqs[k])
		if r.End[i] < w.fromNS || !match(i) {
			continue
		}
		m.count++
		if t := r.TTFT.At(i); t != nil && (m.maxTTFT == nil || *t > *m.maxTTFT) {
			m.maxTTFT = t
		}
		m.maxLatency = max(m.maxLatency, r.End[i]-r.Start[i])
	}
	return m, m.count > 0
}

// wholeSession is session si counted whole.
func (e *Engine) wholeSession(si int) sessionMatch {
	m := sessionMatch{index: si, count: int(e.sessionStart[si+1] - e.sessionStart[si]), maxLatency: e.sessionLatency[si]}
	if k := e.sessionTTFT[si]; k >= 0 {
		m.maxTTFT = &e.r.TTFT.V[k]
	}
	return m
}

// maxRankedPage bounds the sessions pageRanked keeps while walking; a page
// further down the ranking is sliced from the sorted list instead.
const maxRankedPage = 1024

// pageRanked answers for a page of the session list in the order less
// without sorting it: one walk keeps the best offset+limit sessions in a
// heap and ranks the focus session by counting those ahead of it. The
// default timeline order (longest TTFT) so costs a step per session in the
// window and no list of them.
func (e *Engine) pageRanked(w window, match func(int) bool, all bool, less func(x, y sessionMatch) bool, offset, limit, focus int) sessionPage {
	pg := sessionPage{focus: -1}
	fm, inFocus := sessionMatch{}, false
	if focus >= 0 {
		fm, inFocus = e.sessionMatchAt(focus, w, match, all)
	}
	keep := offset + limit
	// best is a heap whose root is the worst session kept.
	best := make([]sessionMatch, 0, min(keep, 64))
	worse := func(i, j int) bool { return less(best[j], best[i]) }
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(best) {
				return
			}
			if c+1 < len(best) && worse(c+1, c) {
				c++
			}
			if !worse(c, i) {
				return
			}
			best[i], best[c] = best[c], best[i]
			i = c
		}
	}
	e.eachSessionMatch(w, match, all, func(m sessionMatch) {
		pg.total++
		pg.requests += m.count
		if inFocus && less(m, fm) {
			pg.focus++ // counts the sessions ahead of the focus; fixed below
		}
		switch {
		case len(best) < keep:
			best = append(best, m)
			for i := len(best) - 1; i > 0 && worse(i, (i-1)/2); i = (i - 1) / 2 {
				best[i], best[(i-1)/2] = best[(i-1)/2], best[i]
			}
		case keep > 0 && less(m, best[0]):
			best[0] = m
			down(0)
		}
	})
	if inFocus {
		pg.focus++ // from -1 + sessions ahead to the focus's position
	}
	slices.SortFunc(best, func(x, y sessionMatch) int {
		if less(x, y) {
			return -1
		}
		return 1
	})
	if offset < len(best) {
		pg.items = best[offset:]
	}
	return pg
}

// sessionPage is one page of the start-ordered list of matching sessions
// with the list's totals.
type sessionPage struct {
	total    int // matching sessions
	requests int // their matching requests
	focus    int // position of the focus session in the list, or -1
	items    []sessionMatch
}

// pageByStart answers for a page of the start-ordered session list without
// listing it. When every request passes the filters, the sessions that
// start inside the window early enough to end inside it are a run of the
// start order counted by prefix sums, so a zoom over a run of 100k
// single-request sessions costs a few binary searches and the sessions
// at the window's edges.
func (e *Engine) pageByStart(w window, match func(int) bool, all bool, offset, limit, focus int) sessionPage {
	spans := e.sessionSpans
	at := func(t int64) int { return sort.Search(len(spans), func(s int) bool { return spans[s].start >= t }) }
	lo := at(w.fromNS - e.maxSessionDur)
	hi := sort.Search(len(spans), func(s int) bool { return spans[s].start > w.toNS })
	midLo, midHi := hi, hi
	if all && w.toNS-e.maxSessionDur >= w.fromNS {
		midLo = max(lo, at(w.fromNS))
		midHi = min(hi, max(midLo, sort.Search(len(spans), func(s int) bool { return spans[s].start > w.toNS-e.maxSessionDur })))
	}
	pg := sessionPage{focus: -1}
	visit := func(m sessionMatch) {
		if m.index == focus {
			pg.focus = pg.total
		}
		if pg.total >= offset && len(pg.items) < limit {
			pg.items = append(pg.items, m)
		}
		pg.total++
		pg.requests += m.count
	}
	for si := lo; si < midLo; si++ {
		if m, ok := e.sessionMatchAt(si, w, match, all); ok {
			visit(m)
		}
	}
	if n := midHi - midLo; n > 0 {
		if focus >= midLo && focus < midHi {
			pg.focus = pg.total + focus - midLo
		}
		for k := max(offset, pg.total); k < pg.total+n && len(pg.items) < limit; k++ {
			pg.items = append(pg.items, e.wholeSession(midLo+k-pg.total))
		}
		pg.total += n
		pg.requests += int(e.sessionStart[midHi] - e.sessionStart[midLo])
	}
	for si := midHi; si < hi; si++ {
		if m, ok := e.sessionMatchAt(si, w, match, all); ok {
			visit(m)
		}
	}
	return pg
}

// groupByRequest visits every request overlapping the window; it serves
// sessions not stored by the start of their first request.
func (e *Engine) groupByRequest(w window, match func(int) bool) []sessionMatch {
	// slot[si] is 1 + the position of session si in out; a slice, not a
	// map, because this runs for every request in range on every redraw.
	slot := make([]int32, len(e.c.Sessions.ID))
	var out []sessionMatch
	e.eachOverlapping(w, func(i int) {
		if !match(i) {
			return
		}
		si := int(e.r.SessionIndex[i])
		k := int(slot[si]) - 1
		if k < 0 {
			k = len(out)
			slot[si] = int32(k + 1)
			out = append(out, sessionMatch{index: si})
		}
		m := &out[k]
		m.count++
		if t := e.r.TTFT.At(i); t != nil && (m.maxTTFT == nil || *t > *m.maxTTFT) {
			m.maxTTFT = t
		}
		m.maxLatency = max(m.maxLatency, e.r.End[i]-e.r.Start[i])
	})
	return out
}

// matchingRequests lists, in (start, id) order, the requests of session si
// that overlap the window and pass the filters.
func (e *Engine) matchingRequests(si int, a Args, w window) ([]int, error) {
	match, err := e.matcher(a, w)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, ri := range e.requestsOfSession(si) {
		if e.r.Start[ri] <= w.toNS && e.r.End[ri] >= w.fromNS && match(int(ri)) {
			out = append(out, int(ri))
		}
	}
	return out, nil
}

// sessions answers the "sessions" kind: the filtered session list, paginated.
func (e *Engine) sessions(a Args) (list[SessionItem], error) {
	pg, w, offset, limit, err := e.sessionsPage(a)
	if err != nil {
		return list[SessionItem]{}, err
	}
	out := list[SessionItem]{Total: pg.total, Offset: offset, Limit: limit, Range: w.json(), Items: []SessionItem{}}
	for _, m := range pg.items {
		out.Items = append(out.Items, e.sessionItem(m))
	}
	return out, nil
}

func (e *Engine) sessionItem(m sessionMatch) SessionItem {
	ss, r := &e.c.Sessions, e.r
	reqs := e.requestsOfSession(m.index)
	it := SessionItem{
		ID: ss.ID[m.index], Start: seconds(ss.Start[m.index]), End: seconds(ss.End[m.index]),
		Requests: make([]string, len(reqs)), SourceTraces: []string{},
		Matching: m.count, MaxTTFTms: m.maxTTFT,
	}
	seen := map[string]bool{}
	for k, ri := range reqs {
		it.Requests[k] = r.ID[ri]
		if t := r.SourceTrace.At(int(ri)); t != nil && !seen[*t] {
			seen[*t] = true
			it.SourceTraces = append(it.SourceTraces, *t)
		}
	}
	ag := &e.c.Agents
	for a := e.agentsOf[m.index][0]; a < e.agentsOf[m.index][1]; a++ {
		areqs := e.requestsOfAgent(int(a))
		ai := AgentItem{ID: ag.ID[a], Parent: ag.Parent.At(int(a)), Depth: ag.Depth[a], Label: e.agentLabel(ag.Depth[a]), Requests: make([]string, len(areqs))}
		for k, ri := range areqs {
			ai.Requests[k] = r.ID[ri]
		}
		it.Agents = append(it.Agents, ai)
	}
	return it
}

// agentLabel names an agent row. AgentPerf records no agent tree, so its
// agents are labeled by what they are, the benchmark client.
func (e *Engine) agentLabel(depth int64) string {
	switch {
	case e.c.Meta.ClientKind == "agentperf":
		return "Client"
	case depth == 0:
		return "Main"
	}
	return "Subagent"
}
