package query

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/model"
)

// Nsight answers: "profiles", "nsys" and "cpu". Ranges and CPU samples live
// in detail shards (catalog.ProfileChunks, catalog.CPUPayload); a question
// that needs shards the engine does not hold fails with shards_needed
// naming them, and the reader (the CLI from the report directory, the page
// from its detail scripts) gives them over and asks again.
//
// Field names follow the CLI of the reference: an NVTX row's packed thread
// id is "global_tid", a decimal string (it may exceed 2^53, which a JSON
// number would round in JavaScript). The page's traceExplorer.queryNsys
// renames it "globalTid", the browser API's name, in web/src/api.js: one
// engine, two spellings, documented in docs/format/nsight.md.

const (
	// MaxNsysLimit bounds a page of NVTX rows, as the reference's browser does.
	MaxNsysLimit = 10_000
	// MaxCPULimit bounds the hotspots of a "cpu" answer.
	MaxCPULimit = 200
	// nsightAttribution says what a profile row does and does not prove.
	nsightAttribution = "Shared process/rank activity; overlap does not prove request ownership"
)

// profileMatch lists the profiles passing the filters, in id order.
func (e *Engine) profileMatch(a Args) []int {
	var out []int
	for i := range e.c.Profiles {
		p := &e.c.Profiles[i]
		if a.Profile != nil && p.ID != *a.Profile ||
			a.Worker != nil && p.Worker != *a.Worker ||
			a.Rank != nil && (p.Rank == nil || strconv.Itoa(*p.Rank) != *a.Rank) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// ProfileItem is one "profiles" item.
type ProfileItem struct {
	ID             int                 `json:"id"`
	File           string              `json:"file"`
	EvidenceSource *int                `json:"evidence_source"`
	Mapped         bool                `json:"mapped"`
	Worker         string              `json:"worker"`
	Role           *string             `json:"role"`
	Index          *int                `json:"index"`
	Engine         *int                `json:"engine"`
	Rank           *int                `json:"rank"`
	RankKind       *string             `json:"rank_kind"`
	GPUs           *string             `json:"gpus"`
	Window         *string             `json:"window"`
	Host           *string             `json:"host"`
	HostSource     string              `json:"host_source"`
	EpochNS        string              `json:"epoch_ns"`
	SystemClockNS  *string             `json:"system_clock_ns"`
	Capture        [2]float64          `json:"capture"`
	ImportedRange  *[2]float64         `json:"imported_range"`
	EventCount     int64               `json:"event_count"`
	SelectedEvents int64               `json:"selected_event_count"`
	Truncated      bool                `json:"truncated"`
	Limit          int64               `json:"limit"`
	Counts         ProfileCountsRecord `json:"counts"`
	Names          int                 `json:"names"`
	CPUSamples     int                 `json:"cpu_samples"`
	CPUPID         *int64              `json:"cpu_pid"`
	CUDA           bool                `json:"cuda"`
	Diagnostics    []string            `json:"diagnostics"`
	Schema         ProfileSchemaRecord `json:"schema"`
	Threads        []ThreadItem        `json:"threads"`
	Density        DensityItem         `json:"density"`
	Clock          string              `json:"clock"`
	Attribution    string              `json:"attribution"`
}

// ThreadItem is one thread of a profile: the packed id as a string, and
// the OS process and thread ids it holds (never a GPU or a rank).
type ThreadItem struct {
	GlobalTID string  `json:"global_tid"`
	PID       int64   `json:"pid"`
	TID       int64   `json:"tid"`
	Name      *string `json:"name"`
}

// DensityItem is a profile's precomputed overview.
type DensityItem struct {
	Bins       int     `json:"bins"`
	BinSeconds float64 `json:"bin_seconds"`
	Counts     []int64 `json:"counts"`
	Note       string  `json:"note"`
}

const densityNote = "counts of overlapping NVTX intervals per bin, not CPU utilisation"

func (e *Engine) profileItem(i int) ProfileItem {
	p := &e.c.Profiles[i]
	it := ProfileItem{
		ID: p.ID, File: p.File, Mapped: p.Mapped, Worker: p.Worker, Role: p.Role, Index: p.Index, Engine: p.Engine, Rank: p.Rank,
		GPUs: p.GPUs, Window: p.Window, Host: p.Host, HostSource: p.HostSource, EpochNS: strconv.FormatInt(p.EpochNS, 10),
		Capture: [2]float64{seconds(p.CaptureNS[0]), seconds(p.CaptureNS[1])}, EventCount: p.Counts.Kept, SelectedEvents: p.Counts.Selected,
		Truncated: p.Truncated, Limit: p.Limit, Counts: ProfileCountsRecord(p.Counts), Names: len(p.Names), CUDA: p.CUDA, Diagnostics: p.Diagnostics,
		Schema: ProfileSchemaRecord(p.Schema), Density: DensityItem{Bins: len(p.Density), BinSeconds: e.durationS / float64(catalog.DensityBins), Counts: p.Density, Note: densityNote},
		Clock: "session UTC anchor (utcEpochNs + session time); no cross-host clock correction", Attribution: nsightAttribution,
	}
	if _, ok := e.sourceByID[p.Source]; ok {
		src := p.Source
		it.EvidenceSource = &src
	}
	if p.Rank != nil {
		k := "nsight_rank"
		it.RankKind = &k
	}
	if p.SystemClockNS != nil {
		s := strconv.FormatInt(*p.SystemClockNS, 10)
		it.SystemClockNS = &s
	}
	if p.ImportedNS != nil {
		it.ImportedRange = &[2]float64{seconds(p.ImportedNS[0]), seconds(p.ImportedNS[1])}
	}
	if p.CPU != nil {
		it.CPUSamples, it.CPUPID = p.CPU.Samples, &p.CPU.PID
	}
	it.Threads = make([]ThreadItem, len(p.Threads))
	for k, th := range p.Threads {
		it.Threads[k] = ThreadItem{GlobalTID: strconv.FormatInt(th.GlobalTID, 10), PID: model.PID(th.GlobalTID), TID: model.TID(th.GlobalTID), Name: th.Name}
	}
	if it.Schema.Tables == nil {
		it.Schema.Tables = []string{}
	}
	if it.Schema.Missing == nil {
		it.Schema.Missing = []string{}
	}
	return it
}

// profiles answers "profiles".
func (e *Engine) profiles(a Args) (list[ProfileItem], error) {
	offset, limit := page(a)
	match := e.profileMatch(a)
	out := list[ProfileItem]{Total: len(match), Offset: offset, Limit: limit, Range: [2]float64{0, e.durationS}, Items: []ProfileItem{}}
	for k := offset; k < len(match) && len(out.Items) < limit; k++ {
		out.Items = append(out.Items, e.profileItem(match[k]))
	}
	return out, nil
}

// NsysAnswer is the "nsys" answer.
type NsysAnswer struct {
	Available bool `json:"available"`
	// Profile, Worker, Rank and Capture describe the one profile asked
	// about; null when the filters select several.
	Profile     *int        `json:"profile"`
	Worker      *string     `json:"worker"`
	Rank        *int        `json:"rank"`
	Capture     *[2]float64 `json:"capture"`
	Profiles    []int       `json:"profiles"`
	Attribution string      `json:"attribution"`
	Range       [2]float64  `json:"range"`
	Total       int64       `json:"total"`
	Offset      int         `json:"offset"`
	Limit       int         `json:"limit"`
	Items       []NsysItem  `json:"items"`
	// Truncated profiles stopped at the import limit: their rows after
	// ImportedRange are not in the report.
	Truncated []TruncatedProfile `json:"truncated"`
}

// TruncatedProfile says how much of a truncated profile the report holds.
type TruncatedProfile struct {
	Profile       int         `json:"profile"`
	Kept          int64       `json:"kept"`
	Selected      int64       `json:"selected"`
	ImportedRange *[2]float64 `json:"imported_range"`
}

// NsysItem is one NVTX range.
type NsysItem struct {
	Profile        int            `json:"profile"`
	Worker         string         `json:"worker"`
	Rank           *int           `json:"rank"`
	Start          float64        `json:"start"`
	End            float64        `json:"end"`
	Name           string         `json:"name"`
	GlobalTID      string         `json:"global_tid"`
	PID            int64          `json:"pid"`
	TID            int64          `json:"tid"`
	Definition     DefinitionItem `json:"definition"`
	RowID          int64          `json:"rowid"`
	EvidenceSource *int           `json:"evidence_source"`
}

// DefinitionItem says which category selected a range's name.
type DefinitionItem struct {
	Category    string  `json:"category"`
	Backend     *string `json:"backend"` // null for the frontend's shared host annotations
	Scope       string  `json:"scope"`
	Description string  `json:"description"`
}

// rowRef is one matching range: its profile, chunk and row.
type rowRef struct {
	start      int64
	prof, pos  int // pos orders rows within a profile
	chunk, row int32
}

// nsys answers "nsys": exact rows at any range. A chunk wholly inside the
// window counts without being read when no name filter applies and the
// page does not reach into it; every other overlapping chunk must be held.
func (e *Engine) nsys(a Args) (*NsysAnswer, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	offset, limit := page(a)
	match := e.profileMatch(a)
	out := &NsysAnswer{Available: len(match) > 0, Profiles: []int{}, Attribution: nsightAttribution, Range: w.json(), Offset: offset, Limit: limit, Items: []NsysItem{}, Truncated: []TruncatedProfile{}}
	if len(match) == 1 {
		p := &e.c.Profiles[match[0]]
		out.Profile, out.Worker, out.Rank = &p.ID, &p.Worker, p.Rank
		out.Capture = &[2]float64{seconds(p.CaptureNS[0]), seconds(p.CaptureNS[1])}
	}
	var filter string
	if a.Name != nil {
		filter = strings.ToLower(*a.Name)
	}
	for _, i := range match {
		p := &e.c.Profiles[i]
		out.Profiles = append(out.Profiles, p.ID)
		if p.Truncated {
			t := TruncatedProfile{Profile: p.ID, Kept: p.Counts.Kept, Selected: p.Counts.Selected}
			if p.ImportedNS != nil {
				t.ImportedRange = &[2]float64{seconds(p.ImportedNS[0]), seconds(p.ImportedNS[1])}
			}
			out.Truncated = append(out.Truncated, t)
		}
	}
	// Plan: which chunks must be read. With one profile the page's
	// position is known from the counts of the chunks before it.
	type part struct {
		prof, chunk int
		inside      bool // every row overlaps the window
	}
	var parts []part
	for _, i := range match {
		p := &e.c.Profiles[i]
		for k, c := range p.Chunks {
			if c.MinStartNS <= w.toNS && c.MaxEndNS >= w.fromNS {
				parts = append(parts, part{i, k, c.MinStartNS >= w.fromNS && c.MaxEndNS <= w.toNS})
			}
		}
	}
	// A chunk crossing the window holds between 0 and all of its rows in
	// it, so a chunk after it starts somewhere in [lo, hi]: it is read
	// when the page may reach into it.
	need := make([]bool, len(parts))
	var lo, hi int64
	for k, pt := range parts {
		rows := int64(e.c.Profiles[pt.prof].Chunks[pt.chunk].Rows)
		switch {
		case !pt.inside || filter != "" || len(match) > 1:
			need[k] = true
			hi += rows
			continue
		case hi+rows > int64(offset) && lo < int64(offset+limit):
			need[k] = true
		}
		lo, hi = lo+rows, hi+rows
	}
	var ids []string
	for k, pt := range parts {
		if need[k] {
			ids = append(ids, e.c.Profiles[pt.prof].Chunks[pt.chunk].ID)
		}
	}
	held, missing := e.detailClaim(ids)
	if len(missing) > 0 {
		return nil, shardsNeeded("nsys", missing)
	}
	defer e.detailRelease(held)

	// Count, and collect the rows the page may need. Sized first: a page
	// of 10,000 items grown by appending spent most of a zoom copying.
	capRows := 0
	for k, pt := range parts {
		if need[k] {
			capRows += e.c.Profiles[pt.prof].Chunks[pt.chunk].Rows
		}
	}
	if len(match) == 1 {
		capRows = min(capRows, limit)
	}
	refs := make([]rowRef, 0, capRows)
	nameOK := map[[2]int]bool{}
	okName := func(i int, n int64) bool {
		if filter == "" {
			return true
		}
		key := [2]int{i, int(n)}
		v, ok := nameOK[key]
		if !ok {
			p := &e.c.Profiles[i]
			v = n >= 0 && n < int64(len(p.Names)) && strings.Contains(strings.ToLower(p.Names[n]), filter)
			nameOK[key] = v
		}
		return v
	}
	pos := make([]int, len(e.c.Profiles)) // rows so far, per profile
	var starts, ends, names []int64       // a block of a chunk's columns, reused
	for k, pt := range parts {
		c := e.c.Profiles[pt.prof].Chunks[pt.chunk]
		if !need[k] {
			out.Total += int64(c.Rows)
			pos[pt.prof] += c.Rows
			continue
		}
		ch := held[c.ID].nvtx
		single := len(match) == 1
		for lo := 0; lo < ch.Len(); lo += catalog.ScanBlock {
			hi := min(lo+catalog.ScanBlock, ch.Len())
			starts = ch.Starts(starts, lo, hi)
			ends = ch.Ends(ends, starts, lo, hi)
			if filter != "" {
				names = ch.Names(names, lo, hi)
			}
			for j, start := range starts {
				if start > w.toNS || ends[j] < w.fromNS || filter != "" && !okName(pt.prof, names[j]) {
					continue
				}
				out.Total++
				if !single || out.Total > int64(offset) && out.Total <= int64(offset+limit) {
					refs = append(refs, rowRef{start: start, prof: pt.prof, pos: pos[pt.prof], chunk: int32(pt.chunk), row: int32(lo + j)})
				}
				pos[pt.prof]++
			}
		}
	}
	if len(match) > 1 {
		slices.SortFunc(refs, func(x, y rowRef) int {
			return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.prof, y.prof), cmp.Compare(x.pos, y.pos))
		})
		refs = refs[min(offset, len(refs)):min(offset+limit, len(refs))]
	}
	out.Items = make([]NsysItem, 0, len(refs))
	// Per profile and per thread, one evidence pointer and one id string:
	// a page has a few threads and thousands of rows.
	sources := map[int]*int{}
	tids := map[int64]string{}
	for _, ref := range refs {
		p := &e.c.Profiles[ref.prof]
		ch := held[p.Chunks[ref.chunk].ID].nvtx
		r := ref.row
		n, g := ch.Name(int(r)), ch.GlobalTID(int(r))
		tid, ok := tids[g]
		if !ok {
			tid = strconv.FormatInt(g, 10)
			tids[g] = tid
		}
		src, ok := sources[ref.prof]
		if !ok {
			if _, known := e.sourceByID[p.Source]; known {
				v := p.Source
				src = &v
			}
			sources[ref.prof] = src
		}
		it := NsysItem{Profile: p.ID, Worker: p.Worker, Rank: p.Rank, Start: seconds(ch.Start(int(r))), End: seconds(ch.End(int(r))),
			GlobalTID: tid, PID: model.PID(g), TID: model.TID(g), RowID: ch.RowID(int(r)), EvidenceSource: src}
		if n >= 0 && n < int64(len(p.Names)) {
			it.Name = p.Names[n]
			d := &p.Definitions[n]
			it.Definition = DefinitionItem{Category: d.Category, Scope: "host", Description: d.Description}
			if d.Category != model.NVTXFrontend {
				it.Definition.Backend = &d.Category
			}
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// CPUAnswer is the "cpu" answer.
type CPUAnswer struct {
	Available      bool         `json:"available"`
	Profiles       []int        `json:"profiles"`
	PID            *int64       `json:"pid"`
	TotalSamples   int          `json:"total_samples"`
	Attribution    string       `json:"attribution"`
	Range          [2]float64   `json:"range"`
	EvidenceSource *int         `json:"evidence_source"`
	Limit          int          `json:"limit"`
	Hotspots       []HotspotRow `json:"hotspots"`
}

// HotspotRow is one symbol: the samples whose call chain holds it.
type HotspotRow struct {
	Symbol   string  `json:"symbol"`
	Samples  int     `json:"samples"`
	Fraction float64 `json:"fraction"`
}

// cpu answers "cpu": per symbol, the samples in the range whose call
// chain holds it (once per sample however often it recurs).
func (e *Engine) cpu(a Args) (*CPUAnswer, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	_, limit := page(a)
	out := &CPUAnswer{Profiles: []int{}, Attribution: "CPU samples of the frontend process (the process with the most frontend NVTX ranges); " + nsightAttribution, Range: w.json(), Limit: limit, Hotspots: []HotspotRow{}}
	var with []int
	var ids []string
	for _, i := range e.profileMatch(a) {
		if p := &e.c.Profiles[i]; p.CPU != nil && p.CPU.Shard != nil {
			with = append(with, i)
			ids = append(ids, p.CPU.Shard.ID)
			out.Profiles = append(out.Profiles, p.ID)
		}
	}
	out.Available = len(with) > 0
	if len(with) == 1 {
		p := &e.c.Profiles[with[0]]
		out.PID = &p.CPU.PID
		if _, ok := e.sourceByID[p.Source]; ok {
			src := p.Source
			out.EvidenceSource = &src
		}
	}
	held, missing := e.detailClaim(ids)
	if len(missing) > 0 {
		return nil, shardsNeeded("cpu", missing)
	}
	defer e.detailRelease(held)
	counts := map[string]int{}
	var mark []int
	for _, i := range with {
		d := held[e.c.Profiles[i].CPU.Shard.ID].cpu
		// mark[symbol] == sample+1 when the symbol was counted for it.
		mark = slices.Grow(mark[:0], len(d.Symbols))[:len(d.Symbols)]
		clear(mark)
		for s, t := range d.Time {
			if t < w.fromNS || t > w.toNS {
				continue
			}
			out.TotalSamples++
			for _, f := range d.Stacks[d.Stack[s]] {
				if mark[f] != s+1 {
					mark[f] = s + 1
					counts[d.Symbols[f]]++
				}
			}
		}
	}
	for sym, n := range counts {
		out.Hotspots = append(out.Hotspots, HotspotRow{Symbol: sym, Samples: n, Fraction: float64(n) / float64(out.TotalSamples)})
	}
	sortByIndex(out.Hotspots, func(x, y HotspotRow) int {
		return cmp.Or(cmp.Compare(y.Samples, x.Samples), cmp.Compare(x.Symbol, y.Symbol))
	})
	out.Hotspots = out.Hotspots[:min(limit, len(out.Hotspots))]
	return out, nil
}

// ProfileSchemaRecord says which tables the reader used and what it looked
// for and did not find.
type ProfileSchemaRecord struct {
	Tables  []string `json:"tables"`
	Missing []string `json:"missing"`
}

// ProfileCountsRecord counts what the reader saw in the export's NVTX
// table (see model.ProfileCounts).
type ProfileCountsRecord struct {
	Rows              int64 `json:"rows"`
	Marks             int64 `json:"marks"`
	InvalidOrBoundary int64 `json:"invalid_or_boundary"`
	Scanned           int64 `json:"scanned"`
	NullNames         int64 `json:"null_names"`
	Unselected        int64 `json:"unselected"`
	Selected          int64 `json:"selected"`
	Kept              int64 `json:"kept"`
}
