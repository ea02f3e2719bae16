package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The serving side of a run: a disaggregated Dynamo deployment (frontends,
// prefill and decode workers) and, for every client request, the Dynamo
// request id and the workers and ranks that served it. Every server source
// renders this one assignment, so spans, bridges, bindings, engine lines and
// gauges name the same request ids, workers and hosts.

// Model is the served model name recorded by the frontend and the engines.
const Model = "synth/agentic-70b"

// Stream keys of the per-request detail streams (mixed with the request's
// creation index, like detailStream).
const (
	serveStream    = 0x5e27_e000_0000_0000
	timelineStream = 0x7153_11fe_0000_0000
	deployStream   = 0xde91_0700_0000_0000
	retryStream    = 0x2e72_0000_0000_0000
)

type engineKind uint8

const (
	engineSGLang engineKind = iota
	engineTokenSpeed
)

// limitPlan is what a TokenSpeed decode scheduler logs as its
// max_batch_size after the startup configuration: nothing, a second
// configuration with a larger limit, or one without a valid limit.
type limitPlan uint8

const (
	limitKept    limitPlan = iota
	limitRaised            // a second config line raises max_batch_size mid-run
	limitDropped           // a second config line logs max_batch_size=None mid-run
)

// logStyle is how a worker's Dynamo runtime writes its binding lines.
type logStyle uint8

const (
	styleJSON       logStyle = iota // flat DYN_LOGGING_JSONL record
	styleText                       // readable key=value
	styleJSONNested                 // tracing-subscriber record with span/spans/fields
	styleANSI                       // readable with colour codes
)

// frontendProc is one `python -m dynamo.frontend` process.
type frontendProc struct {
	host  string
	index int
	epoch string
	pid   int
	json  bool // DYN_LOGGING_JSONL
}

// workerProc is one Dynamo worker process and the engine it drives.
type workerProc struct {
	role  string // "prefill" or "decode"
	index int
	// hosts lists the nodes the engine spans; the Dynamo runtime (and so
	// every binding and span) lives on the first.
	hosts      []string
	gpus       int // 4 per host
	dp         int // attention data-parallel ranks that log their own lines; 1 = no DP prefix
	engine     engineKind
	limit      limitPlan // TokenSpeed decode: how max_batch_size changes mid-run
	epoch      string
	pid        int
	instanceID uint64 // the Dynamo worker_id the router selects
	ms         bool   // SGLANG_LOG_MS: millisecond timestamps
	counters   bool   // SGLANG_LOG_FORWARD_ITERS: "[N]" batch counters
	style      logStyle
}

// hostOfRank returns the index in hosts of the node where DP rank r runs.
func (w *workerProc) hostOfRank(r int) int {
	perHost := max(1, w.dp/len(w.hosts))
	return min(len(w.hosts)-1, r/perHost)
}

// logFile is the worker log file name on host h.
func (w *workerProc) logFile(h int) string {
	return fmt.Sprintf("%s_%s_w%d.out", w.hosts[h], w.role, w.index)
}

// serviceName is the OTel service.name of the worker process.
func (w *workerProc) serviceName() string {
	engine := "sglang"
	if w.engine == engineTokenSpeed {
		engine = "tokenspeed"
	}
	return "dynamo-worker-" + engine + "-" + w.role
}

// deployment is the simulated serving deployment.
type deployment struct {
	frontends []frontendProc
	workers   []workerProc // prefill workers first, then decode workers
	prefill   []int        // indices into workers
	decode    []int
	// decodeSlots spreads requests over decode workers in proportion to
	// their GPUs.
	decodeSlots []int
	nodes       int // node-001 … node-<nodes> are in use
}

// newDeployment sizes the deployment from the run's concurrency: one
// prefill and one decode worker per 16 session slots (at least one each,
// at most eight). decode-0 spans two nodes with eight attention-DP ranks;
// prefill workers run four DP ranks on one node; other decode workers run
// TP4 without DP attention.
//
// With TokenSpeed among the sources there is one decode worker more, so
// that two decode workers run TokenSpeed (the last two beside SGLang, all
// of them without it): the first of the two reconfigures mid-run with a
// larger max_batch_size and the last with none, so every such run shows a
// changed limit and samples without a valid limit.
func newDeployment(c Config) *deployment {
	rng := rand.New(rand.NewPCG(c.Seed, deployStream))
	n := min(8, max(1, (c.Concurrency+15)/16))
	d := &deployment{}
	host := 1
	nextHost := func() string {
		h := fmt.Sprintf("node-%03d", host)
		host++
		return h
	}
	fe := nextHost()
	for i := range 2 {
		d.frontends = append(d.frontends, frontendProc{
			host: fe, index: i, epoch: hex8(rng.Uint32()) + hex8(rng.Uint32()),
			pid: 4000 + rng.IntN(60000), json: i == 1,
		})
	}
	tokenspeedOnly := c.Sources&SourceTokenSpeed != 0 && c.Sources&SourceSGLang == 0
	decodeWorkers := n
	if c.Sources.Has(SourceTokenSpeed) {
		decodeWorkers++
	}
	for _, role := range []string{"prefill", "decode"} {
		count := n
		if role == "decode" {
			count = decodeWorkers
		}
		for i := range count {
			w := workerProc{
				role: role, index: i, gpus: 4, dp: 4, ms: true, counters: true,
				epoch:      hex8(rng.Uint32()) + hex8(rng.Uint32()),
				pid:        4000 + rng.IntN(60000),
				instanceID: rng.Uint64() >> 1,
				style:      logStyle(len(d.workers) % 4),
			}
			w.hosts = []string{nextHost()}
			switch {
			case role == "decode" && i == 0:
				w.hosts = append(w.hosts, nextHost())
				w.gpus, w.dp = 8, 8
			case role == "decode":
				w.dp, w.ms, w.counters = 1, false, false
			}
			if tokenspeedOnly || (c.Sources.Has(SourceTokenSpeed) && role == "decode" && i >= count-2) {
				w.engine = engineTokenSpeed
			}
			if w.engine == engineTokenSpeed && role == "decode" {
				switch i {
				case count - 2:
					w.limit = limitRaised
				case count - 1:
					w.limit = limitDropped
				}
			}
			idx := len(d.workers)
			d.workers = append(d.workers, w)
			if role == "prefill" {
				d.prefill = append(d.prefill, idx)
			} else {
				d.decode = append(d.decode, idx)
				for range w.gpus / 4 {
					d.decodeSlots = append(d.decodeSlots, idx)
				}
			}
		}
	}
	d.nodes = host - 1
	return d
}

// oddity marks a request planted by Config.ClockOddities.
type oddity uint8

const (
	oddNone oddity = iota
	oddSkew
	oddNonMonotonic
	oddRetry
)

var oddityNames = [...]string{"", "skew", "non-monotonic", "retry"}

// Oddity describes a request planted by Config.ClockOddities.
type Oddity struct {
	Kind string `json:"kind"`
	// ClientID is the request's client id (x_request_id).
	ClientID string `json:"client_id"`
	// ServerIDs are the Dynamo request ids it was served under, in order.
	ServerIDs []string `json:"server_ids"`
	About     string   `json:"about"`
}

var oddityAbout = [...]string{
	"",
	"the prefill worker's spans are recorded one TTFT late, so its milestones fall after the client's first token",
	"the decode worker.admission span ends before the decode route is selected, outside its parent route span",
	"the client retried with the same x_request_id: a first Dynamo request fails after prefill dispatch, a second serves it",
}

// serve is how one client request was served.
type serve struct {
	uuid     string // Dynamo request id (the last attempt's)
	first    string // the failed first attempt's id; oddRetry only
	frontend uint8
	prefill  uint16 // index into deployment.workers
	decode   uint16
	pdp, ddp uint8 // DP ranks on the prefill and decode worker
	traced   bool
	odd      oddity
	room     uint64 // SGLang bootstrap_room shared by prefill and decode
}

// serving is the deployment plus the per-request assignment, aligned with
// Plan.Requests.
type serving struct {
	p       *Plan
	d       *deployment
	reqs    []serve
	clients []string // client request id (x_request_id) per request
	odd     []int    // indices of planted requests
}

func newServing(p *Plan) *serving {
	c := p.Config
	sv := &serving{p: p, d: newDeployment(c), reqs: make([]serve, len(p.Requests)), clients: make([]string, len(p.Requests))}
	pcg := rand.NewPCG(0, 0)
	rng := rand.New(pcg)
	d := sv.d
	for i := range p.Requests {
		r := &p.Requests[i]
		pcg.Seed(c.Seed, serveStream^uint64(r.Seq))
		s := &sv.reqs[i]
		s.uuid = newUUID(rng)
		s.frontend = uint8(rng.IntN(len(d.frontends)))
		// KV-aware routing keeps a session on one prefill worker most of
		// the time.
		root := p.Agents[p.Agents[r.Agent].Root].SessionNum
		pw := root % len(d.prefill)
		if rng.Float64() < 0.1 {
			pw = rng.IntN(len(d.prefill))
		}
		s.prefill = uint16(d.prefill[pw])
		s.pdp = uint8(rng.IntN(d.workers[s.prefill].dp))
		s.decode = uint16(d.decodeSlots[rng.IntN(len(d.decodeSlots))])
		s.ddp = uint8(rng.IntN(d.workers[s.decode].dp))
		s.traced = rng.Float64() >= c.OTelUntraced
		s.room = rng.Uint64() >> 1
		sv.clients[i] = sv.clientID(r)
	}
	if c.ClockOddities {
		sv.plantOddities()
	}
	return sv
}

// clientID is the x_request_id the client sent: AIPerf sends its record
// id, AgentPerf a 32-hex id.
func (sv *serving) clientID(r *Request) string {
	if !sv.p.Config.Sources.Has(SourceAgentPerf) {
		return r.ID
	}
	return strings.Replace(r.ID[:36], "-", "", -1) + r.ID[36:]
}

// plantOddities picks three completed, streamed profiling requests spread
// over the run, one per kind.
func (sv *serving) plantOddities() {
	var eligible []int
	for i := range sv.p.Requests {
		r := &sv.p.Requests[i]
		if r.Phase == Profiling && r.Outcome == Completed && r.Chunks > 1 {
			eligible = append(eligible, i)
		}
	}
	if len(eligible) < 3 {
		return
	}
	for k, kind := range []oddity{oddSkew, oddNonMonotonic, oddRetry} {
		i := eligible[(k+1)*len(eligible)/4]
		s := &sv.reqs[i]
		s.odd, s.traced = kind, true
		if kind == oddRetry {
			pcg := rand.NewPCG(sv.p.Config.Seed, retryStream^uint64(sv.p.Requests[i].Seq))
			s.first = newUUID(rand.New(pcg))
		}
		sv.odd = append(sv.odd, i)
	}
}

// oddities describes the planted requests for the summary.
func (sv *serving) oddities() []Oddity {
	var out []Oddity
	for _, i := range sv.odd {
		s := &sv.reqs[i]
		o := Oddity{Kind: oddityNames[s.odd], ClientID: sv.clients[i], ServerIDs: []string{s.uuid}, About: oddityAbout[s.odd]}
		if s.first != "" {
			o.ServerIDs = []string{s.first, s.uuid}
		}
		out = append(out, o)
	}
	return out
}
