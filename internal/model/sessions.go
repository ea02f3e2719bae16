package model

import "sort"

// Session groups the requests that share a root correlation id.
type Session struct {
	ID       string
	StartNS  int64
	EndNS    int64
	Requests []int // indexes into Dataset.Requests, chronological
	Agents   []Agent
}

// Agent groups a session's requests that share a correlation id.
type Agent struct {
	ID       string
	Parent   *string
	Depth    int64 // the smallest depth recorded for the agent
	Requests []int // indexes into Dataset.Requests, chronological
}

// GroupSessions derives sessions and agents from requests, which must be
// sorted by (StartNS, ID). Sessions come out sorted by (StartNS, ID); agents
// within a session by (Depth, first request start, ID).
func GroupSessions(requests []Request) []Session {
	index := map[string]int{}
	var sessions []Session
	agentIndex := map[[2]string]int{}
	for i := range requests {
		r := &requests[i]
		si, ok := index[r.Session]
		if !ok {
			si = len(sessions)
			index[r.Session] = si
			sessions = append(sessions, Session{ID: r.Session, StartNS: r.StartNS, EndNS: r.EndNS})
		}
		s := &sessions[si]
		s.StartNS = min(s.StartNS, r.StartNS)
		s.EndNS = max(s.EndNS, r.EndNS)
		s.Requests = append(s.Requests, i)
		key := [2]string{r.Session, r.Agent}
		ai, ok := agentIndex[key]
		if !ok {
			ai = len(s.Agents)
			agentIndex[key] = ai
			s.Agents = append(s.Agents, Agent{ID: r.Agent, Parent: r.Parent, Depth: r.Depth})
		}
		a := &s.Agents[ai]
		a.Depth = min(a.Depth, r.Depth)
		if a.Parent == nil {
			a.Parent = r.Parent
		}
		a.Requests = append(a.Requests, i)
	}
	for si := range sessions {
		agents := sessions[si].Agents
		sort.SliceStable(agents, func(i, j int) bool {
			a, b := agents[i], agents[j]
			if a.Depth != b.Depth {
				return a.Depth < b.Depth
			}
			as, bs := requests[a.Requests[0]].StartNS, requests[b.Requests[0]].StartNS
			if as != bs {
				return as < bs
			}
			return a.ID < b.ID
		})
	}
	sort.SliceStable(sessions, func(i, j int) bool {
		if sessions[i].StartNS != sessions[j].StartNS {
			return sessions[i].StartNS < sessions[j].StartNS
		}
		return sessions[i].ID < sessions[j].ID
	})
	return sessions
}
