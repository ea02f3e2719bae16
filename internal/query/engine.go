package query

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// Engine answers questions about one report. It reads the core shard's
// columns in place: loading builds only a few integer indexes, so a large
// report opens quickly in the browser. It is safe for concurrent readers.
type Engine struct {
	c *catalog.Core
	r *catalog.Requests

	// sessionRequests[sessionStart[s]:sessionStart[s+1]] are session s's
	// requests in (start, id) order; agentRequests likewise per agent.
	sessionStart, sessionRequests []int32
	agentStart, agentRequests     []int32
	// agentsOf[s] is the range of agent indexes of session s.
	agentsOf [][2]int32

	// serverRow[i] is request i's row in the request_server table, or -1.
	serverRow []int32

	sourceByID map[int]int
	// evidenceHeads[id] is an evidence reference's JSON up to its line:
	// {"source":id,"path":"…","line": (appendEvidence), quoted once rather
	// than in every row of a request page.
	evidenceHeads map[int][]byte
	durationS     float64
	maxRequestDur int64 // longest request, bounds the overlap scan

	// sessionSpans holds each session's first request start and last
	// request end, and sessionTTFT the request with its longest TTFT (-1
	// when none is known), so that a wide range groups whole sessions
	// without visiting their requests; see groupSessions.
	sessionSpans []sessionSpan
	sessionTTFT  []int32
	// sessionLatency is each session's longest request (end − start, ns).
	sessionLatency []int64
	spansByStart   bool  // sessionSpans ascend by start
	maxSessionDur  int64 // longest session span, bounds the session scan

	lastMu sync.Mutex
	last   *sessionsCache

	metricsMu sync.Mutex
	metrics   metricStore

	// chunkMu guards both caches of decoded evidence chunks: the
	// requests' and the unowned spans'.
	chunkMu    sync.Mutex
	chunks     chunkCache
	spanChunks chunkCache
	frameOnce  sync.Once
	evFrame    frame
	// wantEvidence asks the host for evidence chunks (evidencewant.go).
	wantEvidence func(chunks []int) error

	// nsight caches the Nsight detail shards (detailcache.go).
	nsight detailStore

	// workerSet holds every worker id the core names (validate.go), and
	// workerList the "workers" answer once the evidence is there.
	workerSetOnce sync.Once
	workerSet     map[string]bool
	workersMu     sync.Mutex
	workerList    []WorkerItem

	statsOrderOnce sync.Once
	statsOrd       *statsOrders // statsorder.go

	searchOnce sync.Once
	searchText []string // request index → lower-cased identities, built on first search

	summaryOnce sync.Once
	summaryDone summaryParts // summaryonce.go
	// The unowned spans' lanes, read on the first server_lanes question
	// (serverlanes.go).
	serverLanesOnce sync.Once
	serverLaneInfo  []serverLaneInfo
	serverLaneKeys  []serverLaneKey
	serverLanesErr  error

	// pageFrom, when set, writes a page of requests from an engine over
	// the page's rows alone (requestspage.go).
	pageFrom func(rows []int) (*Engine, error)
}

// New indexes a decoded core shard. Requests must be sorted by (start, id),
// which the importer guarantees; New checks it.
func New(c *catalog.Core) (*Engine, error) {
	if c.Meta.DurationNS <= 0 {
		return nil, fmt.Errorf("dataset has a non-positive duration (%d ns)", c.Meta.DurationNS)
	}
	r := &c.Requests
	e := &Engine{c: c, r: r, sourceByID: make(map[int]int, len(c.Sources)), evidenceHeads: make(map[int][]byte, len(c.Sources)), durationS: seconds(c.Meta.DurationNS)}
	if err := checkOrder(r); err != nil {
		return nil, err
	}
	for k := 1; k < r.N && r.ID != nil; k++ {
		// One comparison a row, not an equality test and then an order
		// test: this loop is most of New on the page (100,000 ids).
		if c := strings.Compare(r.ID[r.ByID[k]], r.ID[r.ByID[k-1]]); c == 0 {
			return nil, fmt.Errorf("duplicate request id %q", r.ID[r.ByID[k]])
		} else if c < 0 {
			return nil, fmt.Errorf("request id order is not sorted at %q", r.ID[r.ByID[k]])
		}
	}
	for i := range r.N {
		e.maxRequestDur = max(e.maxRequestDur, r.End[i]-r.Start[i])
	}
	e.sessionStart, e.sessionRequests = bucket(r.SessionIndex, len(c.Sessions.ID))
	e.agentStart, e.agentRequests = bucket(r.AgentIndex, len(c.Agents.Session))
	e.indexSessionSpans()
	e.agentsOf = make([][2]int32, len(c.Sessions.ID))
	for a := len(c.Agents.Session) - 1; a >= 0; a-- { // the ids may be undecoded (SkippedColumns)
		s := c.Agents.Session[a]
		if e.agentsOf[s][1] == 0 {
			e.agentsOf[s][1] = int32(a + 1)
		}
		e.agentsOf[s][0] = int32(a)
	}
	for i, s := range c.Sources {
		e.sourceByID[s.ID] = i
		e.evidenceHeads[s.ID] = appendEvidenceHead(nil, s.ID, s.Path)
	}
	if !e.checkBatchOrder() {
		return nil, fmt.Errorf("batch observations are not stored aligned first in start order")
	}
	e.serverRow = make([]int32, r.N)
	for i := range e.serverRow {
		e.serverRow[i] = -1
	}
	for k, i := range c.Server.Request {
		e.serverRow[i] = int32(k)
	}
	return e, nil
}

type sessionSpan struct{ start, end int64 }

func (e *Engine) indexSessionSpans() {
	r, n := e.r, len(e.c.Sessions.ID)
	e.sessionSpans, e.sessionTTFT, e.sessionLatency = make([]sessionSpan, n), make([]int32, n), make([]int64, n)
	e.spansByStart = true
	for s := range n {
		reqs := e.requestsOfSession(s)
		best := int32(-1)
		sp := sessionSpan{start: 1<<63 - 1, end: -1 << 63}
		for _, ri := range reqs {
			sp.start, sp.end = min(sp.start, r.Start[ri]), max(sp.end, r.End[ri])
			e.sessionLatency[s] = max(e.sessionLatency[s], r.End[ri]-r.Start[ri])
			if valid(r.TTFT.Valid, int(ri)) && (best < 0 || r.TTFT.V[ri] > r.TTFT.V[best]) {
				best = ri
			}
		}
		e.sessionSpans[s], e.sessionTTFT[s] = sp, best
		if len(reqs) > 0 {
			e.maxSessionDur = max(e.maxSessionDur, sp.end-sp.start)
		}
		if s > 0 && sp.start < e.sessionSpans[s-1].start {
			e.spansByStart = false
		}
	}
}

// serverList returns a stored id list of request i's server evidence.
func (e *Engine) serverList(i int, col []string) []string {
	if k := e.serverRow[i]; k >= 0 {
		return catalog.IDs(col[k])
	}
	return []string{}
}

// FromDataset indexes an in-memory dataset, laying it out exactly as a
// report's core shard does, so every surface runs the same code.
func FromDataset(d *model.Dataset) (*Engine, error) {
	d, details, err := profileDetails(d)
	if err != nil {
		return nil, err
	}
	c, err := catalog.Open(catalog.Encode(d))
	if err != nil {
		return nil, err
	}
	ev, err := catalog.EvidenceShard(d)
	if err != nil {
		return nil, err
	}
	if ev != nil {
		if err := c.AttachEvidence(ev); err != nil {
			return nil, err
		}
	}
	e, err := New(c)
	if err != nil {
		return nil, err
	}
	for id, raw := range details {
		if err := e.Give(id, raw); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// bucket groups row indexes by a group column with a counting sort: one
// allocation, no per-group slices, rows kept in order within each group.
func bucket(group []int64, groups int) (start, rows []int32) {
	start = make([]int32, groups+1)
	for _, g := range group {
		start[g+1]++
	}
	for g := range groups {
		start[g+1] += start[g]
	}
	next := append([]int32(nil), start[:groups]...)
	rows = make([]int32, len(group))
	for i, g := range group {
		rows[next[g]] = int32(i)
		next[g]++
	}
	return start, rows
}

func (e *Engine) requestsOfSession(s int) []int32 {
	return e.sessionRequests[e.sessionStart[s]:e.sessionStart[s+1]]
}

func (e *Engine) requestsOfAgent(a int) []int32 {
	return e.agentRequests[e.agentStart[a]:e.agentStart[a+1]]
}

// lookup finds a request index by id with a binary search over the
// build-time id order.
func (e *Engine) lookup(id string) (int, bool) {
	r := e.r
	k := sort.Search(r.N, func(k int) bool { return r.ID[r.ByID[k]] >= id })
	if k < r.N && r.ID[r.ByID[k]] == id {
		return int(r.ByID[k]), true
	}
	return 0, false
}

// searchTexts builds the search haystacks on first use: most views never
// search, and building them costs a string per request. They hold the
// request, session, agent, conversation, source trace, server ids and workers.
func (e *Engine) searchTexts() []string {
	e.searchOnce.Do(func() {
		r := e.r
		e.searchText = make([]string, r.N)
		var b strings.Builder
		for i := range r.N {
			b.Reset()
			b.WriteString(r.ID[i])
			b.WriteByte('\n')
			b.WriteString(r.SessionOf(i))
			b.WriteByte('\n')
			b.WriteString(r.AgentOf(i))
			for _, p := range []*string{r.Conversation.At(i), r.SourceTrace.At(i)} {
				if p != nil {
					b.WriteByte('\n')
					b.WriteString(*p)
				}
			}
			if k := e.serverRow[i]; k >= 0 {
				b.WriteByte('\n')
				b.WriteString(e.c.Server.ServerIDs[k])
				b.WriteByte('\n')
				b.WriteString(e.c.Server.Workers[k])
			}
			e.searchText[i] = strings.ToLower(b.String())
		}
	})
	return e.searchText
}

// seconds converts relative nanoseconds to seconds. float64 division yields
// the nearest representable value, which is what rounding to 9 decimals means.
func seconds(ns int64) float64 { return float64(ns) / 1e9 }

func optSeconds(ns *int64) *float64 {
	if ns == nil {
		return nil
	}
	s := seconds(*ns)
	return &s
}
