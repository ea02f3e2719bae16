package query

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// "nsys_view" is what the page's Nsight track of one profile draws for a
// window. While the chunks overlapping the window hold more than
// NsysExactRows rows it answers the profile's precomputed density (no
// shard needed); below it, the exact ranges laid out in thread lanes, as
// bytes: a paginated JSON page of 20,000 objects would cost the page most
// of a frame to encode and parse.
//
// Bytes: a little-endian uint32 header length, the JSON header
// (NsysViewHeader), zero padding to a multiple of 8, then per drawn row
// five float64s: start, end (seconds), name index, thread index, lane.

const (
	// NsysExactRows is the exact threshold of the guide: the rows the
	// overlapping chunks may hold for the view to draw exact ranges.
	NsysExactRows = 20_000
	// nsysViewThreads and nsysViewLanes bound the drawn threads (most
	// rows in the window first) and each thread's greedy overlap lanes.
	nsysViewThreads = 8
	nsysViewLanes   = 5
	// nsysTopNames bounds the "ranges in the window" table.
	nsysTopNames = 18
	// NsysViewRowFloats is the float64s a drawn row takes.
	NsysViewRowFloats = 5
)

// NsysViewHeader describes the view of one profile in a window.
type NsysViewHeader struct {
	Profile int        `json:"profile"`
	Range   [2]float64 `json:"range"`
	// Estimate is the rows of the chunks overlapping the window: an upper
	// bound on the ranges in it, known without reading a shard.
	Estimate  int64  `json:"estimate"`
	Threshold int    `json:"threshold"`
	Mode      string `json:"mode"` // "density" or "exact"
	// Density (mode density): the bins of the profile's density that
	// overlap the window, from bin First.
	Density *DensityWindow `json:"density"`
	// Exact mode: Total ranges overlap the window; Drawn of them are in
	// the rows; the others are on threads or lanes past the bounds.
	Total    int64         `json:"total"`
	Drawn    int           `json:"drawn"`
	Threads  []ViewThread  `json:"threads"`
	Names    []string      `json:"names"`
	TopNames []TopNameItem `json:"top_names"`
}

// DensityWindow is the part of a profile's density a window shows.
type DensityWindow struct {
	Bins       int     `json:"bins"`
	BinSeconds float64 `json:"bin_seconds"`
	First      int     `json:"first"`
	Counts     []int64 `json:"counts"`
	Note       string  `json:"note"`
}

// ViewThread is one drawn thread: its identity, the ranges it has in the
// window, the lanes they took and those past the lanes.
type ViewThread struct {
	GlobalTID string  `json:"global_tid"`
	PID       int64   `json:"pid"`
	TID       int64   `json:"tid"`
	Name      *string `json:"name"`
	Ranges    int     `json:"ranges"`
	Lanes     int     `json:"lanes"`
	Hidden    int     `json:"hidden"`
}

// TopNameItem is one NVTX name by its elapsed time clipped to the window.
type TopNameItem struct {
	Name    string  `json:"name"`
	Count   int     `json:"count"`
	Seconds float64 `json:"seconds"`
}

func (e *Engine) appendNsysView(dst []byte, a Args) ([]byte, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	match := e.profileMatch(a)
	if len(match) != 1 {
		return nil, badArgs("nsys_view draws one profile: the filters select %d", len(match))
	}
	p := &e.c.Profiles[match[0]]
	h := NsysViewHeader{Profile: p.ID, Range: w.json(), Threshold: NsysExactRows, Threads: []ViewThread{}, Names: []string{}, TopNames: []TopNameItem{}}
	var ids []string
	for _, c := range p.Chunks {
		if c.MinStartNS <= w.toNS && c.MaxEndNS >= w.fromNS {
			h.Estimate += int64(c.Rows)
			ids = append(ids, c.ID)
		}
	}
	if h.Estimate > NsysExactRows {
		h.Mode = "density"
		h.Density = e.densityWindow(p, w)
		return appendView(dst, &h, nil)
	}
	held, missing := e.detailClaim(ids)
	if len(missing) > 0 {
		return nil, shardsNeeded("nsys_view", missing)
	}
	defer e.detailRelease(held)
	h.Mode = "exact"
	sc := viewScratchPool.Get().(*viewScratch)
	defer viewScratchPool.Put(sc)
	rows := e.layOut(p, held, ids, w, &h, sc)
	return appendView(dst, &h, rows)
}

// densityWindow cuts the bins overlapping w from p's density.
func (e *Engine) densityWindow(p *catalog.ProfileRecord, w window) *DensityWindow {
	n := len(p.Density)
	d := &DensityWindow{Bins: n, BinSeconds: e.durationS / float64(max(n, 1)), Counts: []int64{}, Note: densityNote}
	if n == 0 || e.durationS <= 0 {
		return d
	}
	bin := func(t float64) int { return min(max(int(math.Floor(t*float64(n)/e.durationS)), 0), n-1) }
	first, last := bin(w.from), bin(w.to)
	d.First, d.Counts = first, p.Density[first:last+1]
	return d
}

// viewScratch is what one view's layout needs beside its answer, kept
// for the next: a zoom asks a view a frame, and in the page's single
// thread of wasm every allocation it need not make is a garbage
// collection it does not pause for.
type viewScratch struct {
	seen   []seenThread
	nameAt []int32
	top    []TopNameItem
	rows   []float64
	// a chunk's columns, unpacked, and its threads' indexes in seen
	starts, ends, names, threads []int64
	local                        []int
}

// unpack reads rows [lo, hi) of ch's columns into the scratch buffers;
// at the chunk's first row it forgets its threads' places in seen.
func (sc *viewScratch) unpack(ch *catalog.NVTXChunk, lo, hi int, names bool) {
	sc.starts = ch.Starts(sc.starts, lo, hi)
	sc.ends = ch.Ends(sc.ends, sc.starts, lo, hi)
	sc.threads = ch.ThreadIndexes(sc.threads, lo, hi)
	if names {
		sc.names = ch.Names(sc.names, lo, hi)
	}
	if lo == 0 {
		sc.local = slices.Grow(sc.local[:0], len(ch.Threads))[:len(ch.Threads)]
		for k := range sc.local {
			sc.local[k] = -1
		}
	}
}

// seenThread is a thread with ranges in the window: its rows there and
// its index in the header's threads, or -1 when it is not drawn.
type seenThread struct {
	tid  int64
	rows int
	slot int
}

var viewScratchPool = sync.Pool{New: func() any { return new(viewScratch) }}

// layOut reads the window's ranges from the held chunks (in the profile's
// order: start, then end descending) and places each on its thread's
// first free lane. A first pass counts each thread's rows, which choose
// the drawn threads; the second lays the rows out. Threads are few and
// names are indexed, so slices stand where maps would cost most of a zoom.
func (e *Engine) layOut(p *catalog.ProfileRecord, held map[string]*detailEntry, ids []string, w window, h *NsysViewHeader, sc *viewScratch) []float64 {
	seen := sc.seen[:0]
	find := func(g int64) int {
		for k := range seen {
			if seen[k].tid == g {
				return k
			}
		}
		seen = append(seen, seenThread{tid: g, slot: -1})
		return len(seen) - 1
	}
	// seenAt is the index in seen of the thread of the block's row j,
	// found once per chunk.
	seenAt := func(ch *catalog.NVTXChunk, j int) int {
		t := sc.threads[j]
		k := sc.local[t]
		if k < 0 {
			k = find(ch.Threads[t])
			sc.local[t] = k
		}
		return k
	}
	for _, id := range ids {
		ch := held[id].nvtx
		for lo := 0; lo < ch.Len(); lo += catalog.ScanBlock {
			sc.unpack(ch, lo, min(lo+catalog.ScanBlock, ch.Len()), false)
			for j, start := range sc.starts {
				if start > w.toNS || sc.ends[j] < w.fromNS {
					continue
				}
				seen[seenAt(ch, j)].rows++
				h.Total++
			}
		}
	}
	sc.seen = seen
	order := make([]int, len(seen))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(x, y int) int {
		return cmp.Or(cmp.Compare(seen[y].rows, seen[x].rows), cmp.Compare(seen[x].tid, seen[y].tid))
	})
	order = order[:min(len(order), nsysViewThreads)]
	ends := make([][nsysViewLanes]int64, len(order))
	for k, i := range order {
		g := seen[i].tid
		seen[i].slot = k
		var name *string
		for _, th := range p.Threads {
			if th.GlobalTID == g {
				name = th.Name
			}
		}
		h.Threads = append(h.Threads, ViewThread{GlobalTID: strconv.FormatInt(g, 10), PID: model.PID(g), TID: model.TID(g), Name: name, Ranges: seen[i].rows})
		for l := range ends[k] {
			ends[k][l] = math.MinInt64
		}
	}
	// name id + 1 → index in h.Names + 1; slot 0 is "no name"
	nameAt := slices.Grow(sc.nameAt[:0], len(p.Names)+1)[:len(p.Names)+1]
	clear(nameAt)
	top := slices.Grow(sc.top[:0], len(p.Names)+1)[:len(p.Names)+1]
	clear(top)
	sc.nameAt, sc.top = nameAt, top
	out := slices.Grow(sc.rows[:0], int(h.Total)*NsysViewRowFloats)
	for _, id := range ids {
		ch := held[id].nvtx
		for lo := 0; lo < ch.Len(); lo += catalog.ScanBlock {
			sc.unpack(ch, lo, min(lo+catalog.ScanBlock, ch.Len()), true)
			for j, start := range sc.starts {
				end := sc.ends[j]
				if start > w.toNS || end < w.fromNS {
					continue
				}
				last := seenAt(ch, j)
				n := sc.names[j]
				key := 0
				if n >= 0 && n < int64(len(p.Names)) {
					key = int(n) + 1
				}
				t := &top[key]
				t.Count++
				t.Seconds += seconds(min(end, w.toNS) - max(start, w.fromNS))
				k := seen[last].slot
				if k < 0 {
					continue
				}
				lane := -1
				for l, busy := range ends[k] {
					if busy <= start {
						lane = l
						break
					}
				}
				if lane < 0 {
					h.Threads[k].Hidden++
					continue
				}
				ends[k][lane] = max(end, start+1)
				h.Threads[k].Lanes = max(h.Threads[k].Lanes, lane+1)
				at := nameAt[key]
				if at == 0 {
					if key > 0 {
						h.Names = append(h.Names, p.Names[key-1])
					} else {
						h.Names = append(h.Names, "")
					}
					at = int32(len(h.Names))
					nameAt[key] = at
				}
				out = append(out, seconds(start), seconds(end), float64(at-1), float64(k), float64(lane))
			}
		}
	}
	sc.rows = out
	h.Drawn = len(out) / NsysViewRowFloats
	for key, t := range top {
		if t.Count == 0 {
			continue
		}
		if key > 0 {
			t.Name = p.Names[key-1]
		}
		h.TopNames = append(h.TopNames, t)
	}
	sortByIndex(h.TopNames, func(x, y TopNameItem) int {
		return cmp.Or(cmp.Compare(y.Seconds, x.Seconds), cmp.Compare(y.Count, x.Count), cmp.Compare(x.Name, y.Name))
	})
	h.TopNames = h.TopNames[:min(len(h.TopNames), nsysTopNames)]
	return out
}

// appendView writes the header and rows in the layout above.
func appendView(dst []byte, h *NsysViewHeader, rows []float64) ([]byte, error) {
	head, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	base := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(head)))
	dst = append(dst, head...)
	for (len(dst)-base)%8 != 0 {
		dst = append(dst, 0)
	}
	for _, v := range rows {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
	}
	return dst, nil
}
