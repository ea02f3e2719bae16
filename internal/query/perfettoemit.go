package query

import (
	"slices"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/perfetto"
	"github.com/dsight/dsight/internal/pyramid"
)

// PerfettoGroups are the counter groups of the export, in the order the
// session-metrics seed lists them; a series that fits none goes under
// PerfettoOtherGroup.
var PerfettoGroups = []string{"Concurrency", "Throughput", "Per Request", "Latency", "Totals"}

// PerfettoOtherGroup holds the series no seed group describes.
const PerfettoOtherGroup = "Other metrics"

// perfettoGroup places a series in a counter group: the group it names
// (derived session series name theirs), else by what it measures —
// cumulative counters are Totals, rates Throughput, durations Latency,
// request counts Concurrency, per-request token observations Per Request.
func perfettoGroup(group, unit, temporal string, counter bool) string {
	for _, g := range PerfettoGroups {
		if strings.EqualFold(group, g) {
			return g
		}
	}
	u := strings.ToLower(unit)
	switch {
	case counter:
		return "Totals"
	case strings.HasSuffix(u, "/s"):
		return "Throughput"
	case u == "s" || u == "ms" || u == "us" || u == "ns":
		return "Latency"
	case u == "requests":
		return "Concurrency"
	case u == "tokens" && temporal == "event":
		return "Per Request"
	}
	return PerfettoOtherGroup
}

// counters describes the counter groups and one counter track per metric
// series that holds rows.
func (x *exporter) counters() {
	ms := x.e.c.Metrics
	if len(ms) == 0 {
		return
	}
	counterFam := map[string]bool{}
	for _, f := range x.e.c.MetricFamilies {
		counterFam[f.Name] = f.Counter
	}
	byGroup := map[string][]int{}
	for i := range ms {
		m := &ms[i]
		if m.Shard == nil || m.Rows == 0 {
			continue
		}
		g := perfettoGroup(m.Group, m.Unit, m.Temporal, counterFam[m.Name])
		byGroup[g] = append(byGroup[g], i)
	}
	for rank, g := range append(slices.Clone(PerfettoGroups), PerfettoOtherGroup) {
		if len(byGroup[g]) == 0 {
			continue
		}
		r := int32(rank)
		parent := x.track(perfetto.Track{Name: g, Ordering: perfetto.Explicit, Rank: &r}, -1)
		for k, i := range byGroup[g] {
			m := &ms[i]
			name := m.Label
			if name == "" {
				name = m.Name
			}
			if m.ValueKind == "derived" || m.SourceKind == "derived" {
				name += " (derived)"
			}
			kr := int32(k)
			desc := m.Description
			if desc != "" {
				desc += " "
			}
			desc += "Series " + strconv.Itoa(m.ID) + " (" + m.Name + ")."
			p, _ := x.e.pyramidOf(i) // decoded whole by perfetto
			if gaps := gapRows(p); gaps > 0 {
				desc += " " + strconv.Itoa(gaps) + " gap row(s) are not drawn: a counter holds its last value."
				x.counts["metric gap rows (not drawn: a counter holds its last value)"] += int64(gaps)
			}
			x.track(perfetto.Track{Parent: parent.desc.UUID, Name: name, Description: desc, Counter: &perfetto.Counter{UnitName: m.Unit}, Rank: &kr}, i)
		}
	}
}

// gapRows counts a series' rows without a value.
func gapRows(p *pyramid.Pyramid) int {
	n := 0
	if p == nil {
		return 0
	}
	for k := range p.ExactChunks() {
		_, _, valid, err := p.ExactChunk(k)
		if err != nil {
			continue
		}
		for _, ok := range valid {
			if !ok {
				n++
			}
		}
	}
	return n
}

// nvtx lays every profile's ranges on thread tracks under the profile's
// worker process; a range that does not nest on its thread goes to an
// overflow track of that thread.
func (x *exporter) nvtx(held map[string]*detailEntry) {
	for pi := range x.e.c.Profiles {
		p := &x.e.c.Profiles[pi]
		if len(p.Chunks) == 0 {
			continue
		}
		// The profile's worker process, else its role's on its host (the
		// frontend's activities carry no worker), else a process of its own.
		key := processKey(p.Worker, "", orEmpty(p.Host))
		proc := x.procs[key]
		if proc == nil && p.Role != nil {
			proc = x.procs[processKey("", *p.Role, orEmpty(p.Host))]
		}
		if proc == nil {
			proc = &pfProcess{track: x.process(key.name() + " (Nsight)")}
			x.procs[key] = proc
		}
		pid := proc.track.desc.Process.PID
		threads := map[int64]*[]*pfLane{}
		names := map[int64]string{}
		for _, th := range p.Threads {
			if th.Name != nil {
				names[th.GlobalTID] = *th.Name
			}
		}
		for _, c := range p.Chunks {
			ch := held[c.ID].nvtx
			for r := range ch.Len() {
				g := ch.GlobalTID(r)
				lanes := threads[g]
				if lanes == nil {
					lanes = &[]*pfLane{}
					threads[g] = lanes
					x.pid++ // a unique thread id within the trace
					label := "NVTX · tid " + strconv.FormatInt(g, 10)
					if n := names[g]; n != "" {
						label = n + " · " + label
					}
					if p.Rank != nil {
						label += " · rank " + strconv.Itoa(*p.Rank)
					}
					desc := "NVTX ranges of Nsight profile " + strconv.Itoa(p.ID)
					if i, ok := x.e.sourceByID[p.Source]; ok {
						desc += " (" + x.e.c.Sources[i].Path + "; each range's rowid is its row there)"
					}
					desc += ". Ranges are shared process and rank activity: overlap with a request does not prove the request owned it."
					t := x.track(perfetto.Track{Thread: &perfetto.Thread{PID: pid, TID: x.pid, Name: label}, Description: desc}, -1)
					*lanes = append(*lanes, &pfLane{track: t})
				}
				var name uint32
				if n := ch.Name(r); n >= 0 && n < int64(len(p.Names)) {
					name = x.str(p.Names[n])
				}
				s := pfSlice{start: ch.Start(r), end: ch.End(r), kind: sliceNVTX, name: name, req: -1, aux: int32(pi), flow: uint64(ch.RowID(r))}
				before := len(*lanes)
				lane := x.place(lanes, proc.track.desc.UUID, s, (*lanes)[0].track.desc.Thread.Name+" · overlapping ")
				if len(*lanes) > before {
					x.counts["NVTX ranges that do not nest on their thread (drawn on an overflow track)"]++
				}
				lane.track.slices = append(lane.track.slices, s)
			}
		}
	}
}

// write emits the descriptors, then every event in time order: a k-way
// merge of the tracks' slice begins and ends and the counters' rows.
func (x *exporter) write(w *perfetto.Writer) {
	var h cursorHeap
	for _, t := range x.tracks {
		w.Describe(t.desc)
		c := &cursor{t: t, x: x}
		if t.series >= 0 {
			c.p, _ = x.e.pyramidOf(t.series) // decoded whole by perfetto
			if c.p == nil {
				continue
			}
			m := &x.e.c.Metrics[t.series]
			c.hold = m.Temporal != "event"
		}
		if c.next() {
			h = append(h, c)
		}
	}
	h.init()
	for len(h) > 0 {
		c := h[0]
		c.emit(w)
		if !c.next() {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		h.down(0)
	}
}

// cursor walks one track's events in time order.
type cursor struct {
	x    *exporter
	t    *pfTrack
	pos  int // next slice
	open []int
	// the pending event
	ts    int64
	end   bool
	slice int
	// counters
	p          *pyramid.Pyramid
	hold       bool
	chunk, row int
	times      []int64
	values     []float64
	valid      []bool
	value      float64
	last       *float64
	closed     bool
}

// next stages the track's next event; false when there is none.
func (c *cursor) next() bool {
	if c.p != nil {
		return c.nextRow()
	}
	s := c.t.slices
	if n := len(c.open); n > 0 {
		top := &s[c.open[n-1]]
		if c.pos >= len(s) || !nests(top, &s[c.pos]) {
			c.ts, c.end, c.slice = top.end, true, c.open[n-1]
			c.open = c.open[:n-1]
			return true
		}
	}
	if c.pos >= len(s) {
		return false
	}
	c.ts, c.end, c.slice = s[c.pos].start, false, c.pos
	c.open = append(c.open, c.pos)
	c.pos++
	return true
}

// nests reports whether s, the next slice of the track, opens inside top:
// it starts before top ends, or at top's end as a zero-length slice of
// the same request.
func nests(top, s *pfSlice) bool {
	return s.start < top.end || s.start == top.end && s.end == s.start && top.req == s.req
}

func (c *cursor) nextRow() bool {
	for {
		if c.row < len(c.times) {
			k := c.row
			c.row++
			if !c.valid[k] {
				continue
			}
			c.ts, c.value = c.times[k], c.values[k]
			v := c.value
			c.last = &v
			return true
		}
		if c.chunk < c.p.ExactChunks() {
			var err error
			c.times, c.values, c.valid, err = c.p.ExactChunk(c.chunk)
			c.chunk++
			c.row = 0
			if err != nil {
				c.times = nil
			}
			continue
		}
		// A held series repeats its last value at the run's end, so the
		// last sample is drawn with a width (Perfetto holds a counter's
		// value until its next sample).
		if end := c.x.e.c.Meta.DurationNS; c.hold && !c.closed && c.last != nil && c.ts < end {
			c.closed = true
			c.ts, c.value = end, *c.last
			return true
		}
		return false
	}
}

func (c *cursor) emit(w *perfetto.Writer) {
	x := c.x
	ts := x.e.c.Meta.OriginNS + c.ts
	uuid := c.t.desc.UUID
	if c.p != nil {
		w.Counter(ts, uuid, c.value)
		return
	}
	if c.end {
		w.End(ts, uuid)
		return
	}
	s := &c.t.slices[c.slice]
	var flows, term []uint64
	switch {
	case s.kind == sliceRequest && s.flows > 0:
		flows = x.flowBuf[:0]
		for k := range uint64(s.flows) {
			flows = append(flows, s.flow+k)
		}
		x.flowBuf = flows
	case s.kind == sliceActivity && s.flow != 0:
		term = append(x.flowBuf[:0], s.flow)
		x.flowBuf = term
	}
	w.Begin(ts, uuid, x.strs[s.name], x.args(s), flows, term)
}

// args are a slice's debug annotations: only what was recorded.
func (x *exporter) args(s *pfSlice) []perfetto.Arg {
	e, r := x.e, x.e.r
	a := x.argBuf[:0]
	defer func() { x.argBuf = a[:0] }()
	if s.req >= 0 {
		a = append(a, perfetto.Str("request_id", r.ID[s.req]))
	}
	switch s.kind {
	case sliceRequest:
		i := int(s.req)
		a = append(a, perfetto.Str("session", r.SessionOf(i)), perfetto.Str("status", r.Status[i]))
		if v := r.InputTokens.At(i); v != nil {
			a = append(a, perfetto.Int("input_tokens", *v))
		}
		if v := r.OutputTokens.At(i); v != nil {
			a = append(a, perfetto.Int("output_tokens", *v))
		}
		if v := r.CachedTokens.At(i); v != nil {
			a = append(a, perfetto.Int("cached_tokens", *v))
		}
		if v := r.TTFT.At(i); v != nil {
			a = append(a, perfetto.Float("ttft_ms", *v))
		}
		a = append(a, perfetto.Float("latency_ms", float64(r.End[i]-r.Start[i])/1e6))
		if v := r.Phase.At(i); v != nil {
			a = append(a, perfetto.Str("phase", *v))
		}
		if v := r.Error.At(i); v != nil {
			a = append(a, perfetto.Str("error", *v))
		}
		if ws := e.serverList(i, e.c.Server.Workers); len(ws) > 0 {
			a = append(a, perfetto.Str("workers", strings.Join(ws, ", ")))
		}
		ev := e.evidence(model.Ref{Source: int(r.EvidenceSource[i]), Line: r.EvidenceLine[i]})
		a = append(a, perfetto.Bytes("source", x.source(ev.Path, ev.Line)))
	case sliceStage, sliceActivity:
		d := &x.details[s.aux]
		for _, f := range [...]struct {
			name string
			id   uint32
		}{{"span", d.span}, {"role", d.role}, {"host", d.host}} {
			if f.id != 0 {
				a = append(a, perfetto.Str(f.name, x.strs[f.id]))
			}
		}
		if d.path != 0 {
			a = append(a, perfetto.Bytes("source", x.source(x.strs[d.path], d.line)))
		}
	case sliceNVTX:
		p := &e.c.Profiles[s.aux]
		a = append(a, perfetto.Int("profile", int64(p.ID)), perfetto.Int("rowid", int64(s.flow)))
	}
	return a
}

// cursorHeap is a min-heap of cursors by (next timestamp, track uuid),
// written out rather than through container/heap: the merge does one
// sift per event, millions of them.
type cursorHeap []*cursor

func (h cursorHeap) less(i, j int) bool {
	if h[i].ts != h[j].ts {
		return h[i].ts < h[j].ts
	}
	return h[i].t.desc.UUID < h[j].t.desc.UUID
}

func (h cursorHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (h cursorHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}
