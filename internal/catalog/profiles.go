package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Nsight profiles in a report. The core holds one record per profile: its
// identity, anchors, counts, names, threads, a precomputed density and the
// descriptors of its detail shards. The ranges themselves live in detail
// shards of ProfileChunkRows rows each (kind NVTXKind), and a frontend's CPU
// samples in one shard (kind CPUKind), so a profile of ten million ranges
// adds only its descriptors to the core.
const (
	TableProfiles = "profiles"
	NVTXKind      = "nvtx"
	CPUKind       = "cpu"
	// ProfileChunkRows bounds the ranges of one detail shard, as the
	// guide's static shards do (8,192 rows).
	ProfileChunkRows = 8192
	// DensityBins is the resolution of the overview density per profile.
	DensityBins = 512
)

// ProfileRecord is a profile as the core stores it. Times are ns relative
// to Meta.OriginNS unless named otherwise.
type ProfileRecord struct {
	ID            int                    `json:"id"`
	Source        int                    `json:"source"`
	File          string                 `json:"file"`
	Mapped        bool                   `json:"mapped"`
	Worker        string                 `json:"worker"`
	Role          *string                `json:"role"`
	Index         *int                   `json:"index"`
	Engine        *int                   `json:"engine"`
	Rank          *int                   `json:"rank"`
	GPUs          *string                `json:"gpus"`
	Window        *string                `json:"window"`
	Host          *string                `json:"host"`
	HostSource    string                 `json:"host_source"`
	EpochNS       int64                  `json:"epoch_ns"`
	SystemClockNS *int64                 `json:"system_clock_ns"`
	CaptureNS     [2]int64               `json:"capture_ns"`
	ImportedNS    *[2]int64              `json:"imported_ns"`
	Schema        model.ProfileSchema    `json:"schema"`
	Counts        model.ProfileCounts    `json:"counts"`
	Limit         int64                  `json:"limit"`
	Truncated     bool                   `json:"truncated"`
	CUDA          bool                   `json:"cuda"`
	Diagnostics   []string               `json:"diagnostics"`
	Names         []string               `json:"names"`
	Definitions   []model.NVTXDefinition `json:"definitions"`
	Threads       []ProfileThread        `json:"threads"`
	// Density counts, per bin of the run's duration, the kept ranges that
	// overlap it (intervals, not CPU utilisation).
	Density []int64              `json:"density"`
	Chunks  []model.ProfileChunk `json:"chunks"`
	CPU     *CPURecord           `json:"cpu"`
}

// ProfileThread is one thread of a profile.
type ProfileThread struct {
	GlobalTID int64   `json:"global_tid"`
	Name      *string `json:"name"`
}

// CPURecord describes a profile's CPU samples.
type CPURecord struct {
	PID     int64        `json:"pid"`
	Samples int          `json:"samples"`
	Shard   *model.Shard `json:"shard"`
}

// profileRecord lays p out relative to origin, with the density over
// [0, duration) computed from its ranges.
func profileRecord(p *model.Profile, origin, duration int64) ProfileRecord {
	rel := func(t int64) int64 { return p.UTCNS(t) - origin }
	r := ProfileRecord{
		ID: p.ID, Source: p.Source, File: p.File, Mapped: p.Mapped, Worker: p.Worker, Role: p.Role, Index: p.Index,
		Engine: p.Engine, Rank: p.Rank, GPUs: p.GPUs, Window: p.Window, Host: p.Host, HostSource: p.HostSource,
		EpochNS: p.EpochNS, SystemClockNS: p.SystemClockNS, CaptureNS: [2]int64{rel(p.Capture[0]), rel(p.Capture[1])},
		Schema: p.Schema, Counts: p.Counts, Limit: p.Limit, Truncated: p.Truncated, CUDA: p.CUDA,
		Diagnostics: nonNilStrings(p.Diagnostics), Names: nonNilStrings(p.Names), Definitions: p.Definitions,
		Density: Density(p, origin, duration), Chunks: p.Chunks,
	}
	if r.Definitions == nil {
		r.Definitions = []model.NVTXDefinition{}
	}
	if ir, ok := p.ImportedRange(); ok {
		r.ImportedNS = &[2]int64{rel(ir[0]), rel(ir[1])}
	}
	r.Threads = make([]ProfileThread, len(p.Threads))
	for k, th := range p.Threads {
		r.Threads[k] = ProfileThread{GlobalTID: th.GlobalTID, Name: th.Name}
	}
	if p.CPU != nil {
		r.CPU = &CPURecord{PID: p.CPU.PID, Samples: len(p.CPU.Samples), Shard: p.CPUShard}
	}
	return r
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Density counts the ranges overlapping each of DensityBins bins of
// [0, duration): a range increments every bin from the one holding its
// start to the one holding its end (clamped), as the reference does. A
// difference array keeps it O(ranges + bins).
func Density(p *model.Profile, origin, duration int64) []int64 {
	out := make([]int64, DensityBins)
	if duration <= 0 {
		return out
	}
	diff := make([]int64, DensityBins+1)
	bin := func(t int64) int {
		// float64 is exact enough here: a bin is duration/512 wide.
		return min(max(int(float64(t)*DensityBins/float64(duration)), 0), DensityBins-1)
	}
	for _, x := range p.Ranges {
		s, e := p.UTCNS(x.StartNS)-origin, p.UTCNS(x.EndNS)-origin
		if s > duration || e < 0 {
			continue
		}
		diff[bin(s)]++
		diff[bin(e)+1]--
	}
	var run int64
	for k := range DensityBins {
		run += diff[k]
		out[k] = run
	}
	return out
}

func encodeProfiles(d *model.Dataset) []shard.Table {
	recs := make([]string, len(d.Profiles))
	for i := range d.Profiles {
		b, _ := json.Marshal(profileRecord(&d.Profiles[i], d.Meta.OriginNS, d.Meta.DurationNS))
		recs[i] = string(b)
	}
	return []shard.Table{{Name: TableProfiles, Rows: len(recs), Columns: []shard.Column{
		strCol("record", len(recs), func(i int) string { return recs[i] }),
	}}}
}

func (o *opener) profiles(c *Core) {
	t := o.table(TableProfiles)
	if t == nil || o.err != nil {
		return
	}
	for i, s := range o.strs(t, "record") {
		var r ProfileRecord
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			o.err = fmt.Errorf("profile %d: %w", i, err)
			return
		}
		if len(r.Density) != DensityBins || len(r.Definitions) != len(r.Names) {
			o.err = fmt.Errorf("profile %d: %d density bins and %d definitions for %d names", i, len(r.Density), len(r.Definitions), len(r.Names))
			return
		}
		c.Profiles = append(c.Profiles, r)
	}
}

// ChunkPayload is one detail shard of a profile, encoded, with the
// descriptor fields a writer copies.
type ChunkPayload struct {
	Raw                            []byte
	Rows                           int
	MinStartNS, MaxStartNS, MaxEnd int64
}

// ProfileChunks lays p's ranges out as detail shards of ProfileChunkRows
// rows, times relative to origin.
func ProfileChunks(p *model.Profile, origin int64) ([]ChunkPayload, error) {
	var out []ChunkPayload
	var cols nvtxColumns
	for lo := 0; lo < len(p.Ranges); lo += ProfileChunkRows {
		cp, err := cols.encode(p, origin, len(out), nil)
		if err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	return out, nil
}

// nvtxColumns holds the columns of one range shard while it is encoded;
// a layout reuses them from chunk to chunk.
type nvtxColumns [5][]int64

// encode lays out chunk k of p's ranges, appending the shard to dst.
func (cols *nvtxColumns) encode(p *model.Profile, origin int64, k int, dst []byte) (ChunkPayload, error) {
	lo := k * ProfileChunkRows
	rs := p.Ranges[lo:min(lo+ProfileChunkRows, len(p.Ranges))]
	n := len(rs)
	cp := ChunkPayload{Rows: n, MinStartNS: p.UTCNS(rs[0].StartNS) - origin, MaxStartNS: p.UTCNS(rs[n-1].StartNS) - origin}
	for c := range cols {
		if cap(cols[c]) < n {
			cols[c] = make([]int64, n, max(n, ProfileChunkRows))
		}
		cols[c] = cols[c][:n]
	}
	start, dur, name, tid, rowid := cols[0], cols[1], cols[2], cols[3], cols[4]
	cp.MaxEnd = p.UTCNS(rs[0].EndNS) - origin
	for j, x := range rs {
		s := p.UTCNS(x.StartNS) - origin
		e := p.UTCNS(x.EndNS) - origin
		// Ends are stored as durations: small, and delta-friendly.
		start[j], dur[j], name[j], tid[j], rowid[j] = s, e-s, int64(x.Name), x.GlobalTID, x.RowID
		cp.MaxEnd = max(cp.MaxEnd, e)
	}
	names := [...]string{"start_ns", "duration_ns", "name", "global_tid", "rowid"}
	t := shard.Table{Name: NVTXKind, Rows: n, Columns: make([]shard.Column, len(names))}
	for c, name := range names {
		t.Columns[c] = shard.Column{Name: name, Type: shard.Int64, Ints: cols[c]}
	}
	raw, err := shard.AppendEncode(dst, &shard.Shard{Kind: NVTXKind, Tables: []shard.Table{t}})
	if err != nil {
		return cp, fmt.Errorf("profile %d chunk %d: %w", p.ID, k, err)
	}
	cp.Raw = raw
	return cp, nil
}

// CPUPayload lays p's CPU samples out as one detail shard, times relative
// to origin; nil when p has none.
func CPUPayload(p *model.Profile, origin int64) ([]byte, error) {
	cpu := p.CPU
	if cpu == nil {
		return nil, nil
	}
	n := len(cpu.Samples)
	samples := shard.Table{Name: "samples", Rows: n, Columns: []shard.Column{
		intCol("time_ns", n, func(i int) int64 { return p.UTCNS(cpu.Samples[i].TimeNS) - origin }),
		intCol("global_tid", n, func(i int) int64 { return cpu.Samples[i].GlobalTID }),
		intCol("stack", n, func(i int) int64 { return int64(cpu.Samples[i].Stack) }),
		intCol("id", n, func(i int) int64 { return cpu.Samples[i].ID }),
	}}
	var stack, frame []int64
	for k, st := range cpu.Stacks {
		for _, f := range st {
			stack, frame = append(stack, int64(k)), append(frame, int64(f))
		}
	}
	frames := shard.Table{Name: "frames", Rows: len(stack), Columns: []shard.Column{
		{Name: "stack", Type: shard.Int64, Ints: nonNilInts(stack)}, {Name: "symbol", Type: shard.Int64, Ints: nonNilInts(frame)},
	}}
	symbols := shard.Table{Name: "symbols", Rows: len(cpu.Symbols), Columns: []shard.Column{
		strCol("name", len(cpu.Symbols), func(i int) string { return cpu.Symbols[i] }),
	}}
	return shard.Encode(&shard.Shard{Kind: CPUKind, Tables: []shard.Table{samples, frames, symbols}})
}

func nonNilInts(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}

// CPUData is a decoded CPU sample shard.
type CPUData struct {
	Time, GlobalTID, Stack, ID []int64
	Stacks                     [][]int64 // symbol indexes per stack, leaf first
	Symbols                    []string
}

// DecodeCPU reads a CPU sample shard.
func DecodeCPU(s *shard.Shard) (*CPUData, error) {
	if s.Kind != CPUKind {
		return nil, fmt.Errorf("shard kind is %q, want %q", s.Kind, CPUKind)
	}
	o := opener{s: s}
	st, fr, sy := o.table("samples"), o.table("frames"), o.table("symbols")
	if st == nil || fr == nil || sy == nil {
		return nil, fmt.Errorf("cpu shard lacks a table")
	}
	d := &CPUData{Time: o.ints(st, "time_ns"), GlobalTID: o.ints(st, "global_tid"), Stack: o.ints(st, "stack"), ID: o.ints(st, "id"), Symbols: o.strs(sy, "name")}
	stack, sym := o.ints(fr, "stack"), o.ints(fr, "symbol")
	if o.err != nil {
		return nil, o.err
	}
	for k := range stack {
		s := int(stack[k])
		if s < 0 || s > len(d.Stacks) || sym[k] < 0 || sym[k] >= int64(len(d.Symbols)) {
			return nil, fmt.Errorf("cpu frame %d is out of order or names no symbol", k)
		}
		if s == len(d.Stacks) {
			d.Stacks = append(d.Stacks, nil)
		}
		d.Stacks[s] = append(d.Stacks[s], sym[k])
	}
	for k, s := range d.Stack {
		if s < 0 || s >= int64(len(d.Stacks)) {
			return nil, fmt.Errorf("cpu sample %d names stack %d of %d", k, s, len(d.Stacks))
		}
	}
	return d, nil
}
