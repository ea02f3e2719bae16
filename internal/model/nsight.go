package model

// Nsight Systems evidence: one Profile per SQLite export. Times are kept as
// the export records them — nanoseconds on the export's session timeline —
// with the anchors that place them in UTC, so every value traces back to a
// row; UTCNS converts.

// Profile roles and the worker name of a file outside the filename grammar.
const (
	ProfileUnmapped = "unmapped"
)

// NVTX categories: the seed's selection, one per engine or the frontend.
const (
	NVTXFrontend   = "frontend"
	NVTXTRTLLM     = "trtllm"
	NVTXSGLang     = "sglang"
	NVTXTokenSpeed = "tokenspeed"
)

// Profile is one Nsight Systems SQLite export.
type Profile struct {
	ID     int
	Source int    // id of the file's Source
	File   string // path relative to Meta.SourceRoot

	// Identity from the filename. Mapped is false for names outside the
	// grammar; Worker is then ProfileUnmapped and the rest nil.
	Mapped bool
	Worker string // "<role>-<index>", "frontend" or "unmapped"
	Role   *string
	Index  *int
	Engine *int    // failover shadow engine of an "_e<k>" suffix
	Rank   *int    // distributed rank of "_profile_rank<r>"; a GPU set implies none
	GPUs   *string // GPU device set of "_profile_gpu<devices>", as written
	Window *string // digits of a "_window<n>" suffix
	// Host is the export's recorded host name, else the filename's;
	// HostSource says which ("system environment" or "filename").
	Host       *string
	HostSource string

	// EpochNS is the UTC epoch at session start (utcEpochNs); SystemClockNS
	// the system clock at that instant, nil when the export has no such
	// column (then 0 is used, as the export's session clock starts there).
	EpochNS       int64
	SystemClockNS *int64
	// Capture is the analysed window on the session timeline:
	// [startTime − systemClockNs, stopTime − systemClockNs].
	Capture [2]int64

	Schema ProfileSchema

	// Names are the distinct selected NVTX names; Ranges index them.
	// Definitions says, per name, which category selected it.
	Names       []string
	Definitions []NVTXDefinition
	Ranges      []NVTXRange // sorted by (start, end descending, rowid)
	// Threads are the threads of the kept ranges (and CPU samples), by
	// global TID, with their recorded names.
	Threads []ProfileThread

	Counts ProfileCounts
	// Limit is the import limit in force; Truncated says the selected
	// ranges exceeded it and the last ones (in start order) were left out.
	// Reaching the limit exactly is not truncation.
	Limit     int64
	Truncated bool

	// CUDA says the export has a CUDA kernel table; kernels are not imported.
	CUDA bool
	// Diagnostics are the distinct warning and error messages the export
	// recorded (DIAGNOSTIC_EVENT severity 2 or 3), in row order.
	Diagnostics []string
	// CPU holds the frontend process's CPU samples; nil when the export has
	// none to give (not a frontend, or no sampling tables).
	CPU *CPUSamples

	// Chunks locate the ranges in a report's detail shards, and CPUShard
	// the CPU samples; set by the report writer (and read back from a
	// report's core), nil while a build holds the ranges themselves.
	Chunks   []ProfileChunk
	CPUShard *Shard
}

// NVTXDefinition is the category that selected an NVTX name.
type NVTXDefinition struct {
	Category    string `json:"category"` // NVTX*
	Description string `json:"description"`
}

// ProfileChunk is one detail shard of a profile's ranges: consecutive rows
// in range order, with the bounds (ns relative to Meta.OriginNS) a reader
// picks it by without loading it. Ranges cross chunk boundaries, so a
// window selects every chunk with MinStartNS <= to and MaxEndNS >= from.
type ProfileChunk struct {
	Shard
	Rows       int   `json:"rows"`
	MinStartNS int64 `json:"min_start_ns"`
	MaxStartNS int64 `json:"max_start_ns"`
	MaxEndNS   int64 `json:"max_end_ns"`
}

// UTCNS places a session-timeline time in UTC epoch nanoseconds.
func (p *Profile) UTCNS(t int64) int64 { return p.EpochNS + t }

// ImportedRange is [first start, last end] of the kept ranges on the
// session timeline; ok is false when none were kept.
func (p *Profile) ImportedRange() (r [2]int64, ok bool) {
	if len(p.Ranges) == 0 {
		return r, false
	}
	r = [2]int64{p.Ranges[0].StartNS, p.Ranges[0].EndNS}
	for _, x := range p.Ranges {
		r[1] = max(r[1], x.EndNS)
	}
	return r, true
}

// ProfileSchema is what the reader found in the export: Nsight versions
// differ, so each table and column is looked up, and what is absent is
// named ("TABLE" or "TABLE.column") rather than assumed.
type ProfileSchema struct {
	Tables  []string // the tables the reader uses that the export has, sorted
	Missing []string // the tables and columns it looked for and did not find
}

// ProfileCounts counts what the reader saw in NVTX_EVENTS.
type ProfileCounts struct {
	Rows              int64 // rows of NVTX_EVENTS
	Marks             int64 // rows without an end (instant marks), not ranges
	InvalidOrBoundary int64 // ranges ending before they start, or outside the capture
	Scanned           int64 // valid ranges inside the capture
	NullNames         int64 // scanned ranges without a name
	Unselected        int64 // scanned ranges whose name is in no category
	Selected          int64 // scanned ranges in a category (before the limit)
	Kept              int64 // selected ranges imported (len(Ranges))
}

// NVTXRange is one kept NVTX range.
type NVTXRange struct {
	StartNS, EndNS int64 // session timeline, as recorded
	// GlobalTID is Nsight's packed thread id, kept exactly (it may exceed
	// 2^53): pid = (GlobalTID>>24)&0xFFFFFF, tid = GlobalTID&0xFFFFFF.
	GlobalTID int64
	RowID     int64 // NVTX_EVENTS rowid, the evidence
	Name      int32 // index into Profile.Names
}

// ProfileThread is one thread of a profile.
type ProfileThread struct {
	GlobalTID int64
	Name      *string // ThreadNames, nil when unrecorded
}

// PID and TID unpack Nsight's global thread id; they are OS ids and say
// nothing about GPU devices or distributed ranks.
func PID(globalTID int64) int64 { return (globalTID >> 24) & 0xFFFFFF }

// TID is the OS thread id of a global thread id.
func TID(globalTID int64) int64 { return globalTID & 0xFFFFFF }

// CPUSamples are one process's CPU samples with their call chains.
type CPUSamples struct {
	PID int64
	// Symbols are the distinct frame names; Stacks are call chains as
	// symbol indexes, leaf first (stackDepth order).
	Symbols []string
	Stacks  [][]int32
	Samples []CPUSample // in time order
}

// CPUSample is one COMPOSITE_EVENTS row.
type CPUSample struct {
	TimeNS    int64 // session timeline
	GlobalTID int64
	Stack     int32 // index into CPUSamples.Stacks
	ID        int64 // COMPOSITE_EVENTS id, the evidence
}
