package model

// Schema names the normalized contract. It keeps the name existing automation
// already checks in describe() and summary answers.
const Schema = "srtctl-trace/1"

// Dataset is one normalized run. Later sources add collections beside
// Requests; an empty collection is valid.
type Dataset struct {
	Meta     Meta
	Audit    Audit
	Sources  []Source
	Requests []Request
	// Evidence holds the server evidence joined to the requests that have a
	// RequestServer (its Evidence field indexes this list), in request order.
	// Server evidence keeps the recorded absolute epoch nanoseconds;
	// readers measure them from Meta.OriginNS.
	Evidence []RequestEvidence
	// StreamedEvidence, when set, holds that evidence instead (Evidence is
	// then empty): a build that joins in passes encodes each request as it
	// is finished rather than keeping every span.
	StreamedEvidence EvidenceStream
	// ServerSpans are valid server spans no client request owns, sorted as
	// the join found them.
	ServerSpans []JoinedSpan
	// MetricFamilies is the metric catalog, in display order; Metrics are
	// its series, in the same order.
	MetricFamilies []MetricFamily
	Metrics        []MetricSeries
	// BatchObservations are the iteration and batch snapshot lines of the
	// worker logs, aligned ones in (start, worker, rank, line) order, then
	// the unaligned ones in file and line order.
	BatchObservations []BatchObservation
	// Profiles are the Nsight exports, in path order.
	Profiles []Profile
	// Unread lists files found in the run that no reader consumed, relative to
	// Meta.SourceRoot, so that nothing is dropped without the user knowing.
	Unread []string
	// Links are the symbolic links found in the run, in walk order.
	Links []Link
}

// Meta describes the run as a whole.
type Meta struct {
	Job        string
	OriginNS   int64 // absolute epoch ns every relative time is measured from
	DurationNS int64 // length of the recorded window, > 0
	SourceRoot string
	// Phase is the client phase filter that was applied ("profiling" or "all").
	Phase      string
	TimeBasis  string
	ClientKind string // "aiperf", "aiperf-legacy", "agentperf", or "" without a client export
	// OTelEnabled is false when the build was asked to skip OTel entirely.
	OTelEnabled bool
	// IterationTimezone is the IANA zone given for naive worker-log
	// timestamps; "" when none was given.
	IterationTimezone string
	// Limitations are fixed explanatory sentences about what the evidence cannot say.
	Limitations []string
	// Warnings are recoverable problems found while importing, shown to the user.
	Warnings []string
}

// Audit counts what the importer saw and did. Absent keys mean 0.
type Audit map[string]int64

// Source is one evidence file, as registered by the importer.
type Source struct {
	ID     int
	Path   string // relative to Meta.SourceRoot, slash-separated
	Kind   string // "client", …
	Bytes  int64
	SHA256 string
}

// Ref points at the evidence behind a value: a source and a 1-based line
// (or 0-based row for columnar sources).
type Ref struct {
	Source int
	Line   int64
}

// Request is one client request as the benchmark client recorded it.
type Request struct {
	ID           string
	Session      string // root correlation id, else correlation id, else the request id
	Agent        string // correlation id, else the session
	Parent       *string
	Conversation *string
	SourceTrace  *string
	Turn         *int64
	Depth        int64

	StartNS int64  // relative to Meta.OriginNS
	EndNS   int64  // relative to Meta.OriginNS, >= StartNS
	FirstNS *int64 // first-token boundary, nil when TTFT is unknown or unusable
	TTFTms  *float64

	InputTokens  *int64
	OutputTokens *int64
	CachedTokens *int64

	Status string  // "completed", "cancelled" or "error"
	Error  *string // the client's error type/message, when it recorded one
	Phase  *string // benchmark phase as recorded; nil when the row had none
	Worker *string // client worker that issued the request, as recorded

	Evidence Ref
	Issues   []string

	// TimingQuality names where StartNS, EndNS and FirstNS come from:
	// "client export" (AIPerf), "phase analysis" or "request log (liveness)"
	// (AgentPerf); "" when the reader does not distinguish.
	TimingQuality string
	// IdentityEvidence points at the row that supplied ID, Session and Agent
	// when that is not the Evidence row (AgentPerf joins its HTTP request log
	// to a phase-analysis record); nil when Evidence supplied both.
	IdentityEvidence *Ref
	// CacheUsageEvidence points at the row that supplied CachedTokens, which
	// may differ from Evidence; nil when CachedTokens is nil.
	CacheUsageEvidence *Ref
	// PhaseEvidence points at the row that classified Phase when that is not
	// the Evidence row (AgentPerf's phase-manifest window); nil otherwise.
	PhaseEvidence *Ref
	// OriginalStart and OriginalEnd keep the recorded time literals when the
	// source does not record epoch ns (AgentPerf's epoch seconds); nil otherwise.
	OriginalStart *string
	OriginalEnd   *string

	// Server is the server evidence joined to the request; nil when none is.
	Server *RequestServer
}

// Request statuses.
const (
	StatusCompleted = "completed"
	StatusCancelled = "cancelled"
	StatusError     = "error"
)
