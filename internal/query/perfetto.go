package query

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/perfetto"
)

// The Perfetto export ("perfetto", a binary op): the whole report as one
// .pftrace, built from the same columns, evidence and shards every other
// answer reads, so `dsight export perfetto` and the page's Download button
// write the same bytes. Layout:
//
//   - counter tracks first, grouped as the session-metrics seed lists them
//     (Concurrency, Throughput, Per Request, Latency, Totals; series that
//     fit none under "Other metrics"), one per metric series with its unit;
//   - a "Client requests" process whose lanes hold the requests, packed so
//     that overlapping requests never share a lane, each request's
//     lifecycle stages nested under it;
//   - one process per server worker (or role and host when no worker is
//     known) holding the lifecycle activities of the requests it served, on
//     lanes of their own per request, with a flow from each client request
//     to the first activity on every worker that served it;
//   - Nsight NVTX ranges on one thread track per recorded thread, under the
//     profile's worker process.
//
// Times are the recorded epoch nanoseconds. Nothing is invented: a value a
// request did not record has no annotation; a stage that does not nest in
// its request, an NVTX range that does not nest on its thread (it goes to
// an overflow track) and a metric gap row (a counter holds its value, so a
// gap cannot be drawn) are counted in the "dsight export" track's
// description.

// perfettoSequence is the trusted_packet_sequence_id of the export.
const perfettoSequence = 1

// pfSlice is one slice of the export, times relative to the origin.
type pfSlice struct {
	start, end int64
	// flow is a request's first flow id or an activity's terminating one;
	// for an NVTX range, its row id.
	flow  uint64
	name  uint32 // in the exporter's string table
	req   int32  // request index, -1 for NVTX
	aux   int32  // stage/activity: index into the exporter's details; NVTX: profile index
	flows int32  // request: how many flows start at flow
	kind  uint8
}

const (
	sliceRequest = iota
	sliceStage
	sliceActivity
	sliceNVTX
)

// pfDetail is what a stage or activity slice annotates.
type pfDetail struct {
	line                   int64
	path, role, host, span uint32 // string table ids; 0 for none
}

// pfTrack is one track: its descriptor and, for a slice track, its slices
// sorted by (start, end descending, parent first); for a counter track the
// series it draws.
type pfTrack struct {
	desc   perfetto.Track
	slices []pfSlice
	series int // -1: not a counter track
}

// pfLane is a lane being packed: its open slices' ends and owners.
type pfLane struct {
	track  *pfTrack
	ends   []int64
	owner  []int32
	placed int // slices placed on the lane, before they are added
}

type pfProcess struct {
	track *pfTrack
	lanes []*pfLane
	items []pfSlice // activities to pack, by request
}

type exporter struct {
	e        *Engine
	tracks   []*pfTrack
	uuid     uint64
	pid      int32
	procs    map[procKey]*pfProcess
	procKeys []procKey
	details  []pfDetail
	flow     uint64
	counts   map[string]int64
	served   map[procKey]bool // per request: the processes its flows reach

	// strs holds every name and annotation text once; strs[0] is "".
	strs  []string
	strID map[string]uint32

	// reused per request: its decoded evidence and lifecycle
	feed  *chunkFeed
	ev    model.RequestEvidence
	reuse catalog.Reuse
	life  lifecycle.Scratch

	// reused per event
	argBuf  []perfetto.Arg
	laneBuf []*pfLane
	flowBuf []uint64
	srcBuf  []byte
}

// str returns s's id in the string table.
func (x *exporter) str(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := x.strID[s]; ok {
		return id
	}
	if x.strID == nil {
		x.strID, x.strs = map[string]uint32{}, []string{""}
	}
	id := uint32(len(x.strs))
	x.strs = append(x.strs, s)
	x.strID[s] = id
	return id
}

func (x *exporter) track(t perfetto.Track, series int) *pfTrack {
	x.uuid++
	t.UUID = x.uuid
	tr := &pfTrack{desc: t, series: series}
	x.tracks = append(x.tracks, tr)
	return tr
}

func (x *exporter) process(name string) *pfTrack {
	x.pid++
	return x.track(perfetto.Track{Process: &perfetto.Process{PID: x.pid, Name: name}, Ordering: perfetto.Chronological}, -1)
}

// appendPerfetto answers "perfetto": the trace's bytes appended to dst.
func (e *Engine) appendPerfetto(dst []byte) ([]byte, error) {
	w := perfetto.NewWriter(dst, perfettoSequence)
	if err := e.perfetto(w); err != nil {
		return nil, err
	}
	return w.Bytes()
}

// WritePerfetto streams the "perfetto" answer to sink: the same bytes, for
// a trace too large to hold twice. Its errors are the answer's.
func (e *Engine) WritePerfetto(sink io.Writer) error {
	w := perfetto.NewStreamWriter(sink, perfettoSequence)
	if err := e.perfetto(w); err != nil {
		return err
	}
	return w.Flush()
}

// PerfettoReady reports what the export still needs: nil when it can be
// written, else the answer's error (shards_needed naming every metric and
// NVTX shard not held, or evidence_pending). A reader loads what it names
// and asks again before writing.
func (e *Engine) PerfettoReady() error {
	// Nothing is marked read, so the shards just loaded stay until the
	// export reads them.
	held, _, err := e.perfettoClaim()
	if err == nil {
		e.unpin(held)
	}
	return err
}

// perfettoClaim pins every metric and NVTX shard for the export.
func (e *Engine) perfettoClaim() ([]*shardEntry, map[string]*detailEntry, error) {
	if len(e.c.Server.Request) > 0 {
		whole, err := e.holdsAllEvidence()
		if err != nil {
			return nil, nil, err
		}
		if !whole {
			return nil, nil, &Error{Code: CodeEvidencePending, Message: "the Perfetto export needs the report's server evidence, which is still loading"}
		}
	}
	all := make([]int, len(e.c.Metrics))
	for i := range all {
		all[i] = i
	}
	held, missing := e.claim(all)
	var nvtxIDs []string
	for _, p := range e.c.Profiles {
		for _, c := range p.Chunks {
			nvtxIDs = append(nvtxIDs, c.ID)
		}
	}
	detail, dmissing := e.detailClaim(nvtxIDs)
	if len(missing)+len(dmissing) > 0 {
		if held != nil {
			e.unpin(held)
		}
		return nil, nil, shardsNeeded("perfetto", append(missing, dmissing...))
	}
	return held, detail, nil
}

// perfetto writes the trace. It needs the evidence and every metric and
// NVTX shard; without them it names what to load (shards_needed) or waits
// for the evidence.
func (e *Engine) perfetto(w *perfetto.Writer) error {
	held, detail, err := e.perfettoClaim()
	if err != nil {
		return err
	}
	defer e.release(held)
	defer e.detailRelease(detail)
	// The export reads every row: each summary's chunks are decoded here,
	// so that the tracks below meet no summary that fails to.
	for _, en := range held {
		if _, err := en.whole(); err != nil {
			return err
		}
	}

	x := &exporter{e: e, procs: map[procKey]*pfProcess{}, counts: map[string]int64{}, served: map[procKey]bool{}}
	info := x.track(perfetto.Track{Name: "dsight export"}, -1)
	x.counters()
	if err := x.requests(); err != nil {
		return err
	}
	x.packActivities()
	x.nvtx(detail)
	info.desc.Description = x.describeCounts()
	x.write(w)
	_, err = w.Bytes()
	return err
}

// requests lays the client requests on lanes with their stages, and
// collects each served request's activities per worker.
func (x *exporter) requests() error {
	e, r := x.e, x.e.r
	if r.N == 0 {
		return nil
	}
	client := x.process("Client requests (" + e.c.Meta.ClientKind + ")")
	x.feed = e.feedChunks()
	defer x.feed.stop()
	// One detail per stage and activity: sized once from the stored span
	// counts (a stage per span at most, plus the client's), as growing a
	// slice of millions copies it again and again.
	var spans int64
	for _, n := range e.c.Server.SpanCount {
		spans += n
	}
	x.details = make([]pfDetail, 0, 2*spans+3*int64(len(e.c.Server.SpanCount)))
	var lanes []*pfTrack
	var laneEnd []int64
	origin := e.c.Meta.OriginNS
	for i := range r.N {
		start, end := r.Start[i], r.End[i]
		k := slices.IndexFunc(laneEnd, func(t int64) bool { return t <= start })
		if k < 0 {
			k = len(lanes)
			lanes = append(lanes, x.track(perfetto.Track{Parent: client.desc.UUID, Name: "lane " + strconv.Itoa(k+1)}, -1))
			laneEnd = append(laneEnd, 0)
		}
		laneEnd[k] = end
		lane := lanes[k]
		req := pfSlice{start: start, end: end, kind: sliceRequest, name: x.str(requestSliceName(r.Status[i])), req: int32(i)}
		at := len(lane.slices)
		lane.slices = append(lane.slices, req)
		sk := e.serverRow[i]
		if sk < 0 || e.c.Server.LifecycleAvailable[sk] != 1 {
			continue
		}
		acts, stages, err := x.lifecycle(int(sk))
		if err != nil {
			return fmt.Errorf("request %q: stored server evidence: %w", r.ID[i], err)
		}
		prev := start
		for _, s := range stages {
			a, b := s.StartNS-origin, s.EndNS-origin
			if a < prev || b < a || b > end {
				x.counts["lifecycle stages that do not nest in their request (left out)"]++
				continue
			}
			prev = b
			lane.slices = append(lane.slices, pfSlice{start: a, end: b, kind: sliceStage, name: x.str(s.Label), req: int32(i), aux: x.detail(s.Evidence.Path, s.Evidence.Line, s.Role, s.Host, "")})
		}
		first := x.flow + 1
		clear(x.served)
		served := x.served
		for _, act := range acts {
			sp := act.Span
			host := orEmpty(lifecycle.RecordedHost(sp.Span))
			role := sp.Role()
			key := processKey(act.Span.Worker, role, host)
			p := x.procs[key]
			if p == nil {
				p = &pfProcess{}
				x.procs[key] = p
				x.procKeys = append(x.procKeys, key)
				p.track = &pfTrack{desc: perfetto.Track{Name: key.name()}}
			}
			it := pfSlice{start: sp.StartNS - origin, end: sp.EndNS - origin, kind: sliceActivity, name: x.str(act.Label), req: int32(i),
				aux: x.detail(sp.Ref.Path, sp.Ref.Line, role, host, sp.Name)}
			if it.end < it.start {
				x.counts["activities that end before they start (left out)"]++
				continue
			}
			if !served[key] {
				served[key] = true
				x.flow++
				it.flow = x.flow
			}
			p.items = append(p.items, it)
		}
		if n := x.flow + 1 - first; n > 0 {
			lane.slices[at].flow, lane.slices[at].flows = first, int32(n)
		}
	}
	return nil
}

func requestSliceName(status string) string {
	if status == "" || status == "completed" {
		return "request"
	}
	return "request (" + status + ")"
}

// procKey names the process an activity is drawn in: its worker, else
// its role and recorded host.
type procKey struct{ worker, role, host string }

func processKey(worker, role, host string) procKey {
	if worker != "" {
		return procKey{worker: worker, host: host}
	}
	if role == "" {
		role = "server"
	}
	return procKey{role: role, host: host}
}

func (k procKey) name() string {
	name := k.worker
	if name == "" {
		name = k.role
	}
	if k.host != "" {
		name += " · " + k.host
	}
	return name
}

func (k procKey) less(o procKey) int {
	return strings.Compare(k.worker+"\x00"+k.role+"\x00"+k.host, o.worker+"\x00"+o.role+"\x00"+o.host)
}

// lifecycle is the activities and stages of request_server row k, in
// buffers reused for the next row: decoded once into x's storage, derived
// without the words the inspector shows.
func (x *exporter) lifecycle(k int) ([]lifecycle.Activity, []lifecycle.Extent, error) {
	e := x.e
	c, err := x.feed.chunk(int(e.c.Server.Chunk[k]))
	if err != nil {
		return nil, nil, err
	}
	if err := c.RequestInto(int(e.c.Server.Slot[k]), &x.ev, &x.reuse); err != nil {
		return nil, nil, err
	}
	acts, stages := x.life.Timeline(&x.ev)
	return acts, stages, nil
}

func (x *exporter) detail(path string, line int64, role, host, span string) int32 {
	x.details = append(x.details, pfDetail{path: x.str(path), line: line, role: x.str(role), host: x.str(host), span: x.str(span)})
	return int32(len(x.details) - 1)
}

// source appends "path:line" to the exporter's scratch buffer.
func (x *exporter) source(path string, line int64) []byte {
	b := append(x.srcBuf[:0], path...)
	b = append(b, ':')
	b = strconv.AppendInt(b, line, 10)
	x.srcBuf = b
	return b
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// packActivities places each worker's activities on lanes: an activity
// nests under an open one of the same request that contains it, else
// takes the first free lane, so one request's activities never nest under
// another's.
func (x *exporter) packActivities() {
	sortByIndex(x.procKeys, procKey.less)
	for _, key := range x.procKeys {
		p := x.procs[key]
		name := p.track.desc.Name
		p.track = x.process(name)
		slices.SortStableFunc(p.items, func(a, b pfSlice) int {
			if a.start != b.start {
				return cmp.Compare(a.start, b.start)
			}
			return cmp.Compare(b.end, a.end)
		})
		// Place every activity first, then fill each lane's slices sized
		// once: a worker's lanes hold millions of slices between them.
		laneOf := x.laneBuf[:0]
		for _, it := range p.items {
			lane := x.place(&p.lanes, p.track.desc.UUID, it, "lane ")
			lane.placed++
			laneOf = append(laneOf, lane)
		}
		for _, l := range p.lanes {
			l.track.slices = slices.Grow(l.track.slices, l.placed)
		}
		for k, it := range p.items {
			laneOf[k].track.slices = append(laneOf[k].track.slices, it)
		}
		clear(laneOf)
		x.laneBuf = laneOf[:0]
		p.items = nil
	}
}

// place finds the lane for s among lanes (a new one when none fits): the
// first whose innermost open slice has s's owner and contains s, else the
// first with nothing open.
func (x *exporter) place(lanes *[]*pfLane, parent uint64, s pfSlice, prefix string) *pfLane {
	free := -1
	for k, l := range *lanes {
		for n := len(l.ends); n > 0 && l.ends[n-1] <= s.start; n-- {
			l.ends, l.owner = l.ends[:n-1], l.owner[:n-1]
		}
		n := len(l.ends)
		if n > 0 && l.owner[n-1] == s.req && l.ends[n-1] >= s.end {
			l.ends, l.owner = append(l.ends, s.end), append(l.owner, s.req)
			return l
		}
		if n == 0 && free < 0 {
			free = k
		}
	}
	if free < 0 {
		free = len(*lanes)
		*lanes = append(*lanes, &pfLane{track: x.track(perfetto.Track{Parent: parent, Name: prefix + strconv.Itoa(free+1)}, -1)})
	}
	l := (*lanes)[free]
	l.ends, l.owner = append(l.ends, s.end), append(l.owner, s.req)
	return l
}

func (x *exporter) describeCounts() string {
	var b strings.Builder
	b.WriteString("Exported by dsight from report " + x.e.c.Meta.Job + ". Times are the recorded epoch nanoseconds; no cross-host clock correction.")
	keys := make([]string, 0, len(x.counts))
	for k := range x.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s: %d.", k, x.counts[k])
	}
	return b.String()
}
