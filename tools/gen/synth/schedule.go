package synth

import (
	"container/heap"
	"math"
	"math/rand/v2"
)

// Workload shape. Durations are nanoseconds, token counts are tokens.
const (
	second = int64(1e9)
	milli  = int64(1e6)

	rampNS          = 60 * second // time for all session slots to come online
	warmupStagger   = 150 * milli
	warmupSettleNS  = 2 * second // pause between the warmup and profiling phases
	maxContext      = 131072     // context window; longer conversations compact
	cacheBlock      = 64         // prefix-cache granularity
	mainSharedCache = 4096       // system prompt + tool schemas shared by all main agents
	subSharedCache  = 2048       // same for subagents
	maxDepth        = 2
	maxChunks       = 256 // servers coalesce tokens into at most this many stream chunks
	maxOutputTokens = 8192
)

// Probabilities of the rarer outcomes, per profiling request.
const (
	cancelRate   = 0.01
	errorRate    = 0.005
	slowTailRate = 0.015 // requests whose TTFT is hit by a stall on top of load
)

// spawnRate is the chance that a non-final turn at a depth spawns subagents.
var spawnRate = [maxDepth]float64{0.15, 0.1}

// scheduler simulates the run: session slots issue sessions back to back,
// each session being a main agent whose turns may spawn parallel subagents.
type scheduler struct {
	p      *Plan
	rng    *rand.Rand
	origin int64
	budget int // requests still to issue
	load   loadModel
}

func newScheduler(p *Plan, rng *rand.Rand, origin int64) *scheduler {
	return &scheduler{p: p, rng: rng, origin: origin, budget: p.Config.Requests}
}

func (s *scheduler) run() {
	c := s.p.Config
	s.p.Requests = make([]Request, 0, c.Requests)
	profStart := s.origin
	if w := warmupCount(c.Requests); w > 0 {
		profStart = s.warmup(w) + warmupSettleNS
	}
	s.load = loadModel{
		profStart: profStart,
		slots:     c.Concurrency,
		bursts:    bursts{rng: rand.New(rand.NewPCG(c.Seed, 0xb0257)), horizon: profStart},
	}
	slots := make(slotHeap, c.Concurrency)
	step := rampNS / int64(c.Concurrency)
	for i := range slots {
		slots[i] = slot{index: i, free: profStart + int64(i)*step + s.rng.Int64N(step)}
	}
	heap.Init(&slots)
	for s.budget > 0 {
		sl := &slots[0]
		end := s.session(sl.free)
		sl.free = end + s.duration(1500*milli, 0.7, 20*second)
		heap.Fix(&slots, 0)
	}
}

// warmup issues w single-turn requests with short prompts and returns when
// the last one ends; AIPerf starts profiling only after warmup drains.
func (s *scheduler) warmup(w int) int64 {
	end := s.origin
	for i := range w {
		a := s.newAgent(-1, 0)
		isl := s.tokens(1500, 0.3, 64, 4096)
		r := s.issue(a, 0, s.origin+int64(i)*warmupStagger, isl, 0, Warmup)
		end = max(end, r.EndNS)
	}
	return end
}

// session runs one main agent from start and returns its last request's end.
func (s *scheduler) session(start int64) int64 {
	a := s.newAgent(-1, 0)
	turns := 2 + s.count(6, 0.6, 40)
	return s.runAgent(a, start, turns)
}

// runAgent issues an agent's turns sequentially from start. A turn may spawn
// subagents; the agent then waits for all of them, so their requests fall
// strictly between two of its own turns.
func (s *scheduler) runAgent(a int, start int64, turns int) int64 {
	depth := s.p.Agents[a].Depth
	shared, sys := mainSharedCache, s.tokens(6000, 0.3, mainSharedCache+256, 20000)
	if depth > 0 {
		shared, sys = subSharedCache, s.tokens(3200, 0.3, subSharedCache+256, 12000)
	}
	isl := sys + s.tokens(600, 0.8, 16, 8000) // the user's task
	cached := blockFloor(shared)
	t, end := start, start
	for k := 0; k < turns && s.budget > 0; k++ {
		r := s.issue(a, k, t, isl, cached, Profiling)
		end = r.EndNS
		t = r.EndNS
		prev := isl
		if r.Outcome == Completed {
			prev += r.OutputTokens
		}
		isl = prev + s.tokens(900, 1.0, 8, 20000) // tool result
		if k < turns-1 && depth < maxDepth && s.budget >= 3 && s.rng.Float64() < spawnRate[depth] {
			s.budget-- // reserve the next turn so the subagents end inside this agent's span
			t = s.spawn(a, t)
			s.budget++
			isl += s.tokens(700, 0.6, 16, 8000)
		}
		if s.rng.Float64() < s.cacheMissRate(t) {
			cached = blockFloor(shared)
		} else {
			cached = blockFloor(min(prev, isl-1))
		}
		if isl > maxContext {
			// Compaction: the client summarizes history and starts over.
			isl = sys + s.tokens(8000, 0.4, 1024, 32000)
			cached = blockFloor(shared)
		}
		t += s.duration(4*second, 1.0, 120*second) // tool execution / think time
	}
	return end
}

// spawn starts one to three subagents of a shortly after t and returns when
// the last one ends.
func (s *scheduler) spawn(parent int, t int64) int64 {
	depth := s.p.Agents[parent].Depth + 1
	n := 1 + s.rng.IntN(3)
	if depth == maxDepth {
		n = 1 + s.rng.IntN(2)
	}
	end := t
	at := t + s.duration(120*milli, 0.5, 2*second)
	for range n {
		if s.budget <= 0 {
			break
		}
		child := s.newAgent(parent, depth)
		turns := 1 + s.count(2.5, 0.6, 12)
		if depth == maxDepth {
			turns = 1 + s.rng.IntN(3)
		}
		end = max(end, s.runAgent(child, at, turns))
		at += s.duration(40*milli, 0.8, second)
	}
	return end
}

func (s *scheduler) newAgent(parent, depth int) int {
	idx := len(s.p.Agents)
	a := Agent{
		CorrelationID:  newUUID(s.rng),
		ConversationID: newUUID(s.rng),
		Parent:         parent,
		Root:           idx,
		Depth:          depth,
		SessionNum:     idx,
		Worker:         s.rng.IntN(len(s.p.Workers)),
	}
	if parent >= 0 {
		a.Root = s.p.Agents[parent].Root
	}
	s.p.Agents = append(s.p.Agents, a)
	return idx
}

// issue decides one request's tokens, timings and outcome and records it.
func (s *scheduler) issue(agent, turn int, start int64, isl, cached int, phase Phase) *Request {
	s.budget--
	active, stall := 2.0, 1.0
	if phase == Profiling {
		active, stall = s.load.active(start), s.load.bursts.factor(start)
	}
	osl := s.tokens(180, 0.9, 2, maxOutputTokens)
	if phase == Warmup {
		osl = s.tokens(120, 0.4, 2, 1024)
	}
	if s.rng.Float64() < 0.01 {
		osl = 1 // a bare stop or a single-token tool call
	}

	// TTFT: queueing grows with the sessions in flight, prefill with the
	// uncached part of the prompt, and a lognormal spread gives the tail.
	prefillMS := 18 + 0.07*float64(isl-cached) + 0.0015*float64(cached)
	queueMS := lognormal(s.rng, 25*(1+active/8), 0.8)
	ttftMS := (prefillMS + queueMS) * stall * lognormal(s.rng, 1, 0.25)
	if s.rng.Float64() < slowTailRate {
		ttftMS *= 5 + 20*s.rng.Float64()
	}
	// Past half a minute clients and routers time out or shed load, so the
	// stack of multipliers stops compounding there.
	if limit := 30e3 * lognormal(s.rng, 1, 0.15); ttftMS > limit {
		ttftMS = limit
	}
	ttft := max(int64(ttftMS*float64(milli)), 2*milli) + s.rng.Int64N(1000)

	chunks, decode := 1, s.duration(3*milli, 0.5, 50*milli)
	if osl > 1 {
		chunks = min(osl, maxChunks)
		itl := 9e6 * (1 + active/40) * lognormal(s.rng, 1, 0.12)
		decode = int64(float64(osl-1) * itl * (1 + 0.06*s.rng.Float64()))
		decode = max(decode, int64(chunks-1)*1000) // at least 1 µs per gap
	}
	ack := min(ttft/2, s.duration(6*milli, 0.5, 100*milli)) + s.rng.Int64N(1000)

	r := Request{
		Seq:          len(s.p.Requests),
		ID:           newUUID(s.rng),
		Agent:        agent,
		Turn:         turn,
		Phase:        phase,
		StartNS:      start,
		AckNS:        start + ack,
		EndNS:        start + ttft + decode,
		TTFTNS:       ttft,
		InputTokens:  isl,
		OutputTokens: osl,
		CachedTokens: cached,
		Chunks:       chunks,
		Processor:    s.rng.IntN(len(s.p.Processors)),
	}
	if phase == Profiling {
		switch u := s.rng.Float64(); {
		case u < cancelRate:
			// Cancelled somewhere inside what would have been its span.
			r.Outcome = Cancelled
			r.EndNS = start + max(milli, int64(float64(r.EndNS-start)*(0.05+0.9*s.rng.Float64())))
			r.CancelNS = r.EndNS
		case u < cancelRate+errorRate:
			r.Outcome = Failed
			r.Error = s.rng.IntN(len(errorKinds))
			r.EndNS = start + s.duration(60*milli, 0.7, 5*second)
		}
		if r.Outcome != Completed && r.AckNS >= r.EndNS {
			r.AckNS = 0 // ended before the server acknowledged
		}
	}
	s.p.Requests = append(s.p.Requests, r)
	return &s.p.Requests[len(s.p.Requests)-1]
}

// cacheMissRate rises with load: more sessions evict more prefixes.
func (s *scheduler) cacheMissRate(t int64) float64 {
	return 0.03 + 0.002*s.load.active(t)
}

// duration draws a lognormal duration with the given median, capped.
func (s *scheduler) duration(median int64, sigma float64, limit int64) int64 {
	return min(limit, max(1, int64(lognormal(s.rng, float64(median), sigma))))
}

// tokens draws a lognormal token count clamped to [lo, hi].
func (s *scheduler) tokens(median, sigma float64, lo, hi int) int {
	return min(hi, max(lo, int(lognormal(s.rng, median, sigma))))
}

// count draws a lognormal count clamped to [0, hi].
func (s *scheduler) count(median, sigma float64, hi int) int {
	return min(hi, int(lognormal(s.rng, median, sigma)))
}

func lognormal(rng *rand.Rand, median, sigma float64) float64 {
	return median * math.Exp(sigma*rng.NormFloat64())
}

func blockFloor(n int) int { return max(0, n) / cacheBlock * cacheBlock }

// loadModel says how busy the server is at a moment of the profiling phase.
type loadModel struct {
	profStart int64
	slots     int
	bursts    bursts
}

// active is the number of sessions in flight: slots come online linearly
// over the ramp.
func (l *loadModel) active(t int64) float64 {
	f := float64(t-l.profStart) / float64(rampNS)
	return float64(l.slots) * min(1, max(0, f))
}

// bursts are congestion episodes (a prefill backlog, a slow worker) that
// multiply TTFT while they last. Episodes are drawn lazily in time order from
// their own stream, so a lookup never changes what later lookups see.
type bursts struct {
	rng     *rand.Rand
	windows []burst
	horizon int64
}

type burst struct {
	start, end int64
	factor     float64
}

func (b *bursts) factor(t int64) float64 {
	for b.horizon <= t {
		start := b.horizon + int64(b.rng.ExpFloat64()*150*float64(second))
		end := start + 5*second + b.rng.Int64N(40*second)
		b.windows = append(b.windows, burst{start: start, end: end, factor: 2 + 4*b.rng.Float64()})
		b.horizon = end
	}
	// Windows are sorted and disjoint; find the last one starting at or before t.
	lo, hi := 0, len(b.windows)
	for lo < hi {
		m := (lo + hi) / 2
		if b.windows[m].start <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo > 0 && t < b.windows[lo-1].end {
		return b.windows[lo-1].factor
	}
	return 1
}

// slot is one of Config.Concurrency session runners.
type slot struct {
	index int
	free  int64 // when the slot can start its next session
}

type slotHeap []slot

func (h slotHeap) Len() int { return len(h) }
func (h slotHeap) Less(i, j int) bool {
	if h[i].free != h[j].free {
		return h[i].free < h[j].free
	}
	return h[i].index < h[j].index
}
func (h slotHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *slotHeap) Push(x any)   { *h = append(*h, x.(slot)) }
func (h *slotHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
