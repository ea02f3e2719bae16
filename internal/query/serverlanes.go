package query

import (
	"fmt"
	"sort"

	"github.com/dsight/dsight/internal/lifecycle"
	"github.com/dsight/dsight/internal/model"
)

// The page's server-activity lanes: every server span no request owns that
// overlaps a window, grouped into one lane per role and host. Spans are
// packed into sub-lanes so overlapping spans never share one (greedy
// interval packing in (start, end, catalog) order: each span takes the
// first sub-lane whose last span ended at or before it starts, so the
// packing is stable across zooms that keep the same spans). Given the
// lane's width in pixels, a span shorter than MinServerSpanPixels is packed
// as that wide, and a span begun before the window from the window's start,
// since the page draws them so: drawn bars never overlap. When the
// window holds more spans than can be drawn, each lane answers a density
// instead — per bin of the window, how many of its spans overlap the bin —
// labelled so, with the lane's exact span count: nothing is dropped
// without a word.

// MaxServerLaneSpans is the most spans a server_lanes answer draws as bars;
// a window with more answers densities.
const MaxServerLaneSpans = 4000

// MinServerSpanPixels is the narrowest bar the page draws.
const MinServerSpanPixels = 2

// ServerLanes is the "server_lanes" answer.
type ServerLanes struct {
	Range [2]float64 `json:"range"`
	// Total is the number of spans overlapping the window, all lanes.
	Total int `json:"total"`
	// Drawn is "spans" (every span in Rows) or "density" (Density only).
	Drawn    string       `json:"drawn"`
	MaxSpans int          `json:"max_spans"`
	Lanes    []ServerLane `json:"lanes"`
}

// ServerLane is one role · host lane.
type ServerLane struct {
	Key   string  `json:"key"`
	Role  string  `json:"role"`
	Host  *string `json:"host"`
	Total int     `json:"total"`
	// Rows are the sub-lanes, top to bottom, each in start order; no two
	// spans of one sub-lane overlap. With Drawn "spans".
	Rows [][]ServerLaneSpan `json:"rows,omitempty"`
	// Density, with Drawn "density".
	Density *ServerLaneDensity `json:"density,omitempty"`
}

// ServerLaneSpan is one drawn span (seconds from the origin); ID is the
// span id the inspector opens.
type ServerLaneSpan struct {
	ID    string  `json:"id"`
	Name  string  `json:"name"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// ServerLaneDensity counts, per bin of BinSeconds from the window start,
// the lane's spans overlapping the bin (a span counts in each bin it
// covers). Derived from the spans' recorded times.
type ServerLaneDensity struct {
	BinSeconds float64 `json:"bin_seconds"`
	Counts     []int   `json:"counts"`
	Max        int     `json:"max"`
}

// serverLaneInfo is what a lane needs of one span, read once from its
// stored evidence.
type serverLaneInfo struct {
	lane     int32 // index in serverLaneKeys
	id, name string
}

type serverLaneKey struct {
	role string
	host *string
}

// serverLaneIndex reads every unowned span's role, host, id and name once.
func (e *Engine) serverLaneIndex() ([]serverLaneInfo, []serverLaneKey, error) {
	e.serverLanesOnce.Do(func() {
		ss := &e.c.ServerSpans
		info := make([]serverLaneInfo, len(ss.Start))
		var keys []serverLaneKey
		byKey := map[string]int32{}
		for k := range info {
			sp, err := e.joinedServerSpan(k)
			if err != nil {
				e.serverLanesErr = err
				return
			}
			role, host := sp.Role(), lifecycle.RecordedHost(sp.Span)
			key := laneKeyText(role, host)
			li, ok := byKey[key]
			if !ok {
				li = int32(len(keys))
				byKey[key] = li
				keys = append(keys, serverLaneKey{role: role, host: host})
			}
			info[k] = serverLaneInfo{lane: li, id: sp.SpanID, name: sp.Name}
		}
		e.serverLaneInfo, e.serverLaneKeys = info, keys
	})
	return e.serverLaneInfo, e.serverLaneKeys, e.serverLanesErr
}

func (e *Engine) joinedServerSpan(k int) (*model.JoinedSpan, error) {
	ss := &e.c.ServerSpans
	e.chunkMu.Lock()
	defer e.chunkMu.Unlock()
	c, err := e.spanChunks.chunk(int(ss.Chunk[k]), e.c.ServerSpanChunk)
	if err != nil {
		return nil, fmt.Errorf("server span %d: stored evidence: %w", k, err)
	}
	sp, err := c.Span(int(ss.Slot[k]))
	if err != nil {
		return nil, fmt.Errorf("server span %d: stored evidence: %w", k, err)
	}
	return sp, nil
}

func laneKeyText(role string, host *string) string {
	if role == "" {
		role = "role unknown"
	}
	h := "host unknown"
	if host != nil {
		h = *host
	}
	return role + " · " + h
}

// serverLanes answers "server_lanes" for the window, bins wide when it
// answers densities.
func (e *Engine) serverLanes(a Args) (*ServerLanes, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	info, keys, err := e.serverLaneIndex()
	if err != nil {
		return nil, err
	}
	ss := &e.c.ServerSpans
	var in []int
	for k := range ss.Start {
		if ss.Start[k] <= w.toNS && ss.End[k] >= w.fromNS {
			in = append(in, k)
		}
	}
	out := &ServerLanes{Range: w.json(), Total: len(in), Drawn: "spans", MaxSpans: MaxServerLaneSpans, Lanes: []ServerLane{}}
	lanes := make([]*ServerLane, len(keys))
	for _, k := range in {
		li := info[k].lane
		if lanes[li] == nil {
			kk := keys[li]
			lanes[li] = &ServerLane{Key: laneKeyText(kk.role, kk.host), Role: kk.role, Host: kk.host}
		}
		lanes[li].Total++
	}
	if len(in) > MaxServerLaneSpans {
		out.Drawn = "density"
		bins := a.Bins
		if bins < 1 {
			bins = DefaultOverviewBins
		}
		width := (w.toNS - w.fromNS + int64(bins) - 1) / int64(bins)
		width = max(width, 1)
		for _, k := range in {
			l := lanes[info[k].lane]
			if l.Density == nil {
				l.Density = &ServerLaneDensity{BinSeconds: seconds(width), Counts: make([]int, bins)}
			}
			b0 := int(max(ss.Start[k]-w.fromNS, 0) / width)
			b1 := int(min(ss.End[k]-w.fromNS, w.toNS-w.fromNS) / width)
			for b := b0; b <= min(b1, bins-1); b++ {
				l.Density.Counts[b]++
			}
		}
		for _, l := range lanes {
			if l != nil && l.Density != nil {
				for _, n := range l.Density.Counts {
					l.Density.Max = max(l.Density.Max, n)
				}
			}
		}
	} else {
		sort.SliceStable(in, func(i, j int) bool {
			a, b := in[i], in[j]
			if ss.Start[a] != ss.Start[b] {
				return ss.Start[a] < ss.Start[b]
			}
			return ss.End[a] < ss.End[b]
		})
		var minNS int64 // the narrowest drawn bar, in ns
		if a.Pixels > 0 {
			minNS = (w.toNS - w.fromNS) * MinServerSpanPixels / int64(a.Pixels)
		}
		ends := make([][]int64, len(keys)) // per lane, each sub-lane's last (drawn) end
		for _, k := range in {
			li := info[k].lane
			l := lanes[li]
			// A bar is drawn clipped to the window and at least minNS wide.
			start := max(ss.Start[k], w.fromNS)
			row := len(ends[li])
			for r, end := range ends[li] {
				if end <= start {
					row = r
					break
				}
			}
			if row == len(ends[li]) {
				ends[li] = append(ends[li], 0)
				l.Rows = append(l.Rows, nil)
			}
			ends[li][row] = max(ss.End[k], start+minNS)
			l.Rows[row] = append(l.Rows[row], ServerLaneSpan{ID: info[k].id, Name: info[k].name, Start: seconds(ss.Start[k]), End: seconds(ss.End[k])})
		}
	}
	for _, l := range lanes {
		if l != nil {
			out.Lanes = append(out.Lanes, *l)
		}
	}
	sort.SliceStable(out.Lanes, func(i, j int) bool { return out.Lanes[i].Key < out.Lanes[j].Key })
	return out, nil
}
