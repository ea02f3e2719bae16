package query

// Bar is the least a timeline needs to draw one request.
type Bar struct {
	ID           string   `json:"id"`
	Start        float64  `json:"start"`
	End          float64  `json:"end"`
	First        *float64 `json:"first"`
	TTFTms       *float64 `json:"ttft_ms"`
	Status       string   `json:"status"`
	Turn         *int64   `json:"turn"`
	InputTokens  *int64   `json:"input_tokens"`
	OutputTokens *int64   `json:"output_tokens"`
	Invalid      bool     `json:"invalid_first"` // first token recorded after the request ended
	Lifecycle    bool     `json:"lifecycle"`     // a server lifecycle is available to expand
}

// TimelineSession is one session row of the timeline page.
type TimelineSession struct {
	ID        string          `json:"id"`
	Start     float64         `json:"start"`
	End       float64         `json:"end"`
	Matching  int             `json:"matching"`
	MaxTTFTms *float64        `json:"max_ttft_ms"`
	AgentsN   int             `json:"agent_count"`
	Agents    []TimelineAgent `json:"agents,omitempty"` // only for expanded sessions
}

// TimelineAgent is one agent row with its matching request bars.
type TimelineAgent struct {
	ID     string  `json:"id"`
	Parent *string `json:"parent"`
	Depth  int64   `json:"depth"`
	Label  string  `json:"label"`
	Bars   []Bar   `json:"bars"`
}

// TimelinePage is what the page draws for one page of sessions.
type TimelinePage struct {
	list[TimelineSession]
	MatchingRequests int `json:"matching_requests"`
	// FocusIndex is the position of the session holding Args.ID in the
	// filtered order (-1 when it is filtered out), so a page can show it.
	FocusIndex int `json:"focus_index"`
}

// timeline answers the "timeline" kind: one page of sessions with request
// bars for the expanded ones, so the page draws with one engine call.
//
// With FocusPage it answers the page of Limit sessions holding the session
// of ID, when that session is in the list: what a page that moves its
// pager to the selected request would otherwise ask twice (once for
// focus_index, once for the page).
func (e *Engine) timeline(a Args) (*TimelinePage, error) {
	if _, limit := page(a); a.FocusPage && limit > 0 {
		probe, zero := a, 0
		probe.Offset, probe.Limit = &zero, &zero
		pg, _, _, _, err := e.sessionsPage(probe)
		if err != nil {
			return nil, err
		}
		if pg.focus >= 0 {
			offset := pg.focus / limit * limit
			a.Offset = &offset
		}
	}
	pg, w, offset, limit, err := e.sessionsPage(a)
	if err != nil {
		return nil, err
	}
	expanded := map[string]bool{}
	for _, id := range a.Expanded {
		expanded[id] = true
	}
	out := TimelinePage{list: list[TimelineSession]{Total: pg.total, Offset: offset, Limit: limit, Range: w.json(), Items: []TimelineSession{}}}
	out.MatchingRequests, out.FocusIndex = pg.requests, pg.focus
	for _, m := range pg.items {
		ss := &e.c.Sessions
		agents := e.agentsOf[m.index]
		ts := TimelineSession{ID: ss.ID[m.index], Start: seconds(ss.Start[m.index]), End: seconds(ss.End[m.index]), Matching: m.count, MaxTTFTms: m.maxTTFT, AgentsN: int(agents[1] - agents[0])}
		if expanded[ts.ID] {
			requests, err := e.matchingRequests(m.index, a, w)
			if err != nil {
				return nil, err
			}
			ts.Agents = e.timelineAgents(agents, requests)
		}
		out.Items = append(out.Items, ts)
	}
	return &out, nil
}

func (e *Engine) timelineAgents(agents [2]int32, matching []int) []TimelineAgent {
	r, ag := e.r, &e.c.Agents
	bars := map[int64][]Bar{}
	for _, i := range matching {
		b := Bar{
			ID: r.ID[i], Start: seconds(r.Start[i]), End: seconds(r.End[i]), First: optSeconds(r.First.At(i)),
			TTFTms: r.TTFT.At(i), Status: r.Status[i], Turn: r.Turn.At(i),
			InputTokens: r.InputTokens.At(i), OutputTokens: r.OutputTokens.At(i),
		}
		if f := r.First.At(i); f != nil && *f > r.End[i] {
			b.Invalid = true
		}
		if k := e.serverRow[i]; k >= 0 {
			b.Lifecycle = e.c.Server.LifecycleAvailable[k] == 1
		}
		bars[r.AgentIndex[i]] = append(bars[r.AgentIndex[i]], b)
	}
	out := make([]TimelineAgent, 0, agents[1]-agents[0])
	for a := agents[0]; a < agents[1]; a++ {
		out = append(out, TimelineAgent{ID: ag.ID[a], Parent: ag.Parent.At(int(a)), Depth: ag.Depth[a], Label: e.agentLabel(ag.Depth[a]), Bars: nonNil(bars[int64(a)])})
	}
	return out
}
