package synth

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// Phase is the benchmark phase a request was issued in.
type Phase uint8

// Phases in the order AIPerf runs them.
const (
	Warmup Phase = iota
	Profiling
)

func (p Phase) String() string {
	if p == Warmup {
		return "warmup"
	}
	return "profiling"
}

// Outcome is how a request ended.
type Outcome uint8

// Request outcomes.
const (
	Completed Outcome = iota
	Cancelled
	Failed
)

// Agent is one conversation: a main agent (depth 0) or a subagent it spawned.
type Agent struct {
	CorrelationID  string
	ConversationID string
	Parent         int // index into Plan.Agents, -1 for a main agent
	Root           int // index of the session's main agent (itself for a main agent)
	Depth          int
	SessionNum     int // AIPerf's sequential conversation index
	Worker         int // index into Plan.Workers; AIPerf keeps a conversation on one worker
}

// Request is one client request with every timing already decided. Times are
// absolute epoch nanoseconds; zero AckNS or CancelNS means "not recorded".
type Request struct {
	Seq     int // creation index; seeds the request's own detail stream
	ID      string
	Agent   int // index into Plan.Agents
	Turn    int
	Phase   Phase
	Outcome Outcome

	StartNS  int64
	AckNS    int64
	EndNS    int64
	CancelNS int64
	TTFTNS   int64 // time to first token; meaningful only for Completed

	InputTokens  int
	OutputTokens int
	CachedTokens int
	Chunks       int // streamed chunks; Chunks-1 inter-chunk gaps

	Error     int // index into errorKinds when Outcome == Failed
	Processor int // index into Plan.Processors
}

// Plan is one simulated run, ready to be rendered by the source writers.
type Plan struct {
	Config     Config // resolved
	OriginNS   int64  // earliest request start
	Agents     []Agent
	Requests   []Request // export order: warmup first, then by end time
	Workers    []string
	Processors []string
}

// NewPlan simulates the run c describes. It is a pure function of c.
func NewPlan(c Config) (*Plan, error) {
	c, err := c.Resolve()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x5eed_a1fe_0000_0001))
	p := &Plan{Config: c}
	p.Workers = make([]string, min(16, max(2, (c.Concurrency+7)/8)))
	for i := range p.Workers {
		p.Workers[i] = "worker_" + hex8(rng.Uint32())
	}
	p.Processors = make([]string, 4)
	for i := range p.Processors {
		p.Processors[i] = "record_processor_" + hex8(rng.Uint32())
	}
	// A seed-dependent offset within a day keeps runs of different seeds
	// from sharing timestamps while staying near the reference epoch.
	origin := BaseEpochNS + rng.Int64N(86_400e9)

	s := newScheduler(p, rng, origin)
	s.run()

	slices.SortFunc(p.Requests, func(a, b Request) int {
		return cmp.Or(cmp.Compare(a.Phase, b.Phase), cmp.Compare(a.EndNS, b.EndNS), cmp.Compare(a.Seq, b.Seq))
	})
	p.OriginNS = origin
	for i := range p.Requests {
		p.OriginNS = min(p.OriginNS, p.Requests[i].StartNS)
	}
	if c.Hostile {
		plantHostileIDs(p)
	}
	return p, nil
}

// Strings planted by Config.Hostile. They are data: every consumer must
// carry them through escaped, never interpret them.
const (
	HostileMarkup = `<img src=x onerror=alert(1)>`
	HostileQuotes = `"quotes" & </script>`
)

// plantHostileIDs rewrites one session id (the first profiling session's
// main agent, so it also lands in root/parent ids), one request id and one
// conversation id. Each keeps its unique prefix so ids stay unique.
func plantHostileIDs(p *Plan) {
	var profiling []int
	for i := range p.Requests {
		if p.Requests[i].Phase == Profiling {
			profiling = append(profiling, i)
		}
	}
	if len(profiling) == 0 {
		return
	}
	root := p.Agents[p.Requests[profiling[0]].Agent].Root
	p.Agents[root].CorrelationID += "-" + HostileMarkup
	p.Requests[profiling[len(profiling)/2]].ID += "-" + HostileMarkup
	conv := p.Requests[profiling[len(profiling)/3]].Agent
	p.Agents[conv].ConversationID += "-" + HostileQuotes
}

// Counts summarizes a plan.
type Counts struct {
	Requests  int `json:"requests"`
	Warmup    int `json:"warmup"`
	Profiling int `json:"profiling"`
	Cancelled int `json:"cancelled"`
	Errors    int `json:"errors"`
	Sessions  int `json:"sessions"`
	Agents    int `json:"agents"`
}

// Counts tallies the plan's requests by phase and outcome.
func (p *Plan) Counts() Counts {
	c := Counts{Requests: len(p.Requests), Agents: len(p.Agents)}
	for i := range p.Agents {
		if p.Agents[i].Parent < 0 {
			c.Sessions++
		}
	}
	for i := range p.Requests {
		r := &p.Requests[i]
		if r.Phase == Warmup {
			c.Warmup++
		} else {
			c.Profiling++
		}
		switch r.Outcome {
		case Cancelled:
			c.Cancelled++
		case Failed:
			c.Errors++
		}
	}
	return c
}

// EndNS is the latest request end in the plan.
func (p *Plan) EndNS() int64 {
	end := p.OriginNS
	for i := range p.Requests {
		end = max(end, p.Requests[i].EndNS)
	}
	return end
}
