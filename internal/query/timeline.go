package query

import "github.com/dsight/dsight/internal/model"

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

// Timeline answers the "timeline" kind: one page of sessions with request
// bars for the expanded ones, so the page draws with one engine call.
func (e *Engine) Timeline(a Args) (any, error) {
	matches, w, err := e.matchingSessions(a)
	if err != nil {
		return nil, err
	}
	offset, limit, err := page(a, 7)
	if err != nil {
		return nil, err
	}
	expanded := map[string]bool{}
	for _, id := range a.Expanded {
		expanded[id] = true
	}
	out := TimelinePage{list: list[TimelineSession]{Total: len(matches), Offset: offset, Limit: limit, Range: w.json(), Items: []TimelineSession{}}}
	out.FocusIndex = -1
	focus := -1
	if ri, ok := e.requestByID[a.ID]; ok {
		focus = e.sessionOf[ri]
	}
	for k, m := range matches {
		out.MatchingRequests += m.count
		if m.index == focus {
			out.FocusIndex = k
		}
	}
	for k := offset; k < len(matches) && len(out.Items) < limit; k++ {
		m := matches[k]
		s := &e.sessions[m.index]
		ts := TimelineSession{ID: s.ID, Start: seconds(s.StartNS), End: seconds(s.EndNS), Matching: m.count, MaxTTFTms: m.maxTTFT, AgentsN: len(s.Agents)}
		if expanded[s.ID] {
			requests, err := e.matchingRequests(m.index, a, w)
			if err != nil {
				return nil, err
			}
			ts.Agents = e.timelineAgents(s.Agents, requests)
		}
		out.Items = append(out.Items, ts)
	}
	return out, nil
}

func (e *Engine) timelineAgents(agents []model.Agent, matching []int) []TimelineAgent {
	byAgent := map[string][]Bar{}
	for _, ri := range matching {
		r := &e.d.Requests[ri]
		b := Bar{ID: r.ID, Start: seconds(r.StartNS), End: seconds(r.EndNS), TTFTms: r.TTFTms, Status: r.Status, Turn: r.Turn, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens}
		if r.FirstNS != nil {
			f := seconds(*r.FirstNS)
			b.First = &f
		}
		b.Invalid = r.FirstNS != nil && *r.FirstNS > r.EndNS
		byAgent[r.Agent] = append(byAgent[r.Agent], b)
	}
	out := make([]TimelineAgent, 0, len(agents))
	for _, a := range agents {
		out = append(out, TimelineAgent{ID: a.ID, Parent: a.Parent, Depth: a.Depth, Label: agentLabel(a.Depth), Bars: nonNil(byAgent[a.ID])})
	}
	return out
}
