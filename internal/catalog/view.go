package catalog

import (
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Core is the decoded core shard as columns. Readers query the columns in
// place: nothing is copied into per-request structs at load, which is what
// keeps a 100,000-request report quick to open in the browser's engine.
type Core struct {
	Meta     model.Meta
	Audit    model.Audit
	Sources  []model.Source
	Unread   []string
	Requests Requests
	Sessions Sessions
	Agents   Agents
	// Server holds the server evidence of the requests that have any, and
	// ServerSpans the spans no request owns.
	Server       Server
	ServerChunks []string // deflated evidence chunks; see ServerChunk
	// ServerChunkBytes are the chunks' inflated sizes.
	ServerChunkBytes []int64
	ServerSpans      ServerSpans
	// SpanChunks hold the evidence of ServerSpans; see ServerSpanChunk.
	SpanChunks     []string
	SpanChunkBytes []int64
	// MetricFamilies is the metric catalog; Metrics its series' metadata
	// and shard descriptors (samples stay in detail shards).
	MetricFamilies []model.MetricFamily
	Metrics        []model.MetricSeries
	// Batch holds the iteration records and batch snapshots.
	Batch Batch
	// Profiles are the Nsight profiles' records (ranges and CPU samples
	// stay in detail shards).
	Profiles []ProfileRecord
	// WorkerBindings index the evidence's worker bindings.
	WorkerBindings WorkerBindings
	// chunkHeld marks the chunks attached when the evidence came in
	// pieces (nil when it came whole); chunksMissing counts the others.
	chunkHeld     []bool
	chunksMissing int
	// chunkCount is the run's evidence chunk count when the core holds
	// some requests only (OpenRows); 0: as many as the requests point into.
	chunkCount int
}

// Server is the request_server table: one row per request with server evidence.
type Server struct {
	Request            []int64
	ServerIDs, Workers []string // one id per line
	SpanCount          []int64
	LifecycleAvailable []int64
	// Chunk and Slot locate the row's evidence in ServerChunks.
	Chunk, Slot []int64
}

// IDs splits a stored id list.
func IDs(list string) []string { return splitList(list) }

// ServerSpans is the server_spans table: times relative to the origin,
// and where each span's evidence is stored in SpanChunks.
type ServerSpans struct {
	Start, End  []int64
	Chunk, Slot []int64
}

// Strings is a nullable string column; Valid == nil means no nulls.
type Strings struct {
	V     []string
	Valid []bool
}

// At returns row i, or nil when it is null.
func (c Strings) At(i int) *string {
	if c.Valid != nil && !c.Valid[i] {
		return nil
	}
	return &c.V[i]
}

// Ints is a nullable integer column.
type Ints struct {
	V     []int64
	Valid []bool
}

// At returns row i, or nil when it is null.
func (c Ints) At(i int) *int64 {
	if c.Valid != nil && !c.Valid[i] {
		return nil
	}
	return &c.V[i]
}

// Floats is a nullable float column.
type Floats struct {
	V     []float64
	Valid []bool
}

// At returns row i, or nil when it is null.
func (c Floats) At(i int) *float64 {
	if c.Valid != nil && !c.Valid[i] {
		return nil
	}
	return &c.V[i]
}

// Refs is a nullable evidence reference column.
type Refs struct{ Source, Line Ints }

// At returns row i, or nil when it is null.
func (c Refs) At(i int) *model.Ref {
	s, l := c.Source.At(i), c.Line.At(i)
	if s == nil || l == nil {
		return nil
	}
	return &model.Ref{Source: int(*s), Line: *l}
}

// Requests holds one column per model.Request field, rows in (start, id)
// order, plus the build-time grouping into sessions and agents.
type Requests struct {
	N                                       int
	ID                                      []string
	Parent, Conversation, SourceTrace       Strings
	Turn                                    Ints
	Depth                                   []int64
	Start, End                              []int64
	First                                   Ints
	TTFT                                    Floats
	InputTokens, OutputTokens, CachedTokens Ints
	Status                                  []string
	Error, Phase, Worker                    Strings
	EvidenceSource, EvidenceLine            []int64
	TimingQuality                           []string
	IdentityEvidence, CacheUsageEvidence    Refs
	PhaseEvidence                           Refs
	OriginalStart, OriginalEnd              Strings
	Issues                                  map[int][]string
	// SessionIndex and AgentIndex place each request in Sessions and Agents;
	// the session and agent ids are stored there once, not per request.
	SessionIndex, AgentIndex []int64
	// ByID lists request indexes sorted by ID, for lookups by binary search.
	ByID []int64

	sessionIDs, agentIDs []string
}

// SessionOf is request i's session id.
func (r *Requests) SessionOf(i int) string { return r.sessionIDs[r.SessionIndex[i]] }

// AgentOf is request i's agent id.
func (r *Requests) AgentOf(i int) string { return r.agentIDs[r.AgentIndex[i]] }

// Sessions are the run's sessions in (start, id) order.
type Sessions struct {
	ID         []string
	Start, End []int64
}

// Agents are the sessions' agents, grouped by session in session order and,
// within a session, by (depth, first request start, id).
type Agents struct {
	Session []int64
	ID      []string
	Parent  Strings
	Depth   []int64
}

// Row materializes request i.
func (r *Requests) Row(i int) model.Request {
	return model.Request{
		ID: r.ID[i], Session: r.SessionOf(i), Agent: r.AgentOf(i),
		Parent: r.Parent.At(i), Conversation: r.Conversation.At(i), SourceTrace: r.SourceTrace.At(i),
		Turn: r.Turn.At(i), Depth: r.Depth[i],
		StartNS: r.Start[i], EndNS: r.End[i], FirstNS: r.First.At(i), TTFTms: r.TTFT.At(i),
		InputTokens: r.InputTokens.At(i), OutputTokens: r.OutputTokens.At(i), CachedTokens: r.CachedTokens.At(i),
		Status: r.Status[i], Error: r.Error.At(i), Phase: r.Phase.At(i), Worker: r.Worker.At(i),
		Evidence:      model.Ref{Source: int(r.EvidenceSource[i]), Line: r.EvidenceLine[i]},
		Issues:        r.Issues[i],
		TimingQuality: r.TimingQuality[i], IdentityEvidence: r.IdentityEvidence.At(i),
		CacheUsageEvidence: r.CacheUsageEvidence.At(i), PhaseEvidence: r.PhaseEvidence.At(i),
		OriginalStart: r.OriginalStart.At(i), OriginalEnd: r.OriginalEnd.At(i),
	}
}

// Dataset materializes the whole dataset. A chunk that does not decode is
// left out: Open has no reason to read every chunk, and readers of one
// request report the damage through ServerChunk.
func (c *Core) Dataset() *model.Dataset {
	d := &model.Dataset{Meta: c.Meta, Audit: c.Audit, Sources: c.Sources, Unread: c.Unread, Requests: make([]model.Request, c.Requests.N)}
	for i := range d.Requests {
		d.Requests[i] = c.Requests.Row(i)
	}
	sv := &c.Server
	for k, i := range sv.Request {
		d.Requests[i].Server = &model.RequestServer{
			ServerIDs: splitList(sv.ServerIDs[k]), Workers: splitList(sv.Workers[k]), SpanCount: int(sv.SpanCount[k]),
			LifecycleAvailable: sv.LifecycleAvailable[k] == 1, Evidence: int(sv.Chunk[k])*EvidencePerChunk + int(sv.Slot[k]),
		}
	}
	d.Evidence = decodeAll(len(c.ServerChunks), c.ServerChunk, (*EvidenceChunk).Request)
	d.ServerSpans = decodeAll(len(c.SpanChunks), c.ServerSpanChunk, (*EvidenceChunk).Span)
	d.MetricFamilies, d.Metrics = c.MetricFamilies, c.Metrics
	for i := range c.Batch.N {
		d.BatchObservations = append(d.BatchObservations, c.Batch.Row(i, c.Meta.OriginNS))
	}
	return d
}

// AttachEvidence adds the evidence shard's chunks to the core: the whole
// evidence, checking that every request's evidence lies in a chunk it
// holds, or one piece of it (evidencepieces.go), checking that it belongs
// to this core's chunks.
func (c *Core) AttachEvidence(s *shard.Shard) error {
	if s.Kind != EvidenceKind {
		return fmt.Errorf("shard kind is %q, want %q", s.Kind, EvidenceKind)
	}
	o := opener{s: s}
	var payload []string
	var size []int64
	if t := o.table(TableServerChunks); t != nil {
		payload, size = o.strs(t, "payload"), o.ints(t, "bytes")
	}
	if o.err != nil {
		return fmt.Errorf("evidence shard: %w", o.err)
	}
	if len(payload) != len(size) {
		return fmt.Errorf("evidence shard: %d payloads, %d sizes", len(payload), len(size))
	}
	if t, ok := s.Table(TableEvidencePiece); ok {
		return c.attachPiece(&o, t, payload, size)
	}
	for k, ch := range c.Server.Chunk {
		if ch < 0 || ch >= int64(len(payload)) {
			return fmt.Errorf("evidence shard: request %d's evidence is in chunk %d of %d", c.Server.Request[k], ch, len(payload))
		}
	}
	c.ServerChunks, c.ServerChunkBytes = payload, size
	c.chunkHeld, c.chunksMissing = nil, 0
	return nil
}

// HasEvidence says whether the requests' server evidence can be read: the
// run has none, or its evidence shard (or every piece of it) is attached.
func (c *Core) HasEvidence() bool {
	return len(c.Server.Request) == 0 || (c.ServerChunks != nil && c.chunksMissing == 0)
}

// Open views a core shard as columns, checking every table and column the
// readers rely on, and that the grouping indexes are in range.
func Open(s *shard.Shard) (*Core, error) { return OpenTables(s, nil) }

// OpenTables is Open over a core decoded without some of its tables
// (shard.DecodeTables): a table skipped names is read as absent, and the
// Core holds nothing of it. A nil skipped is Open.
func OpenTables(s *shard.Shard, skipped func(table string) bool) (*Core, error) {
	return OpenColumns(s, skipped, nil)
}

// OpenColumns is OpenTables over a core decoded without some columns too
// (shard.DecodeTableFramesSkipping): a column skippedColumns names is read
// as nil, so a reader that reaches it fails loudly instead of reading
// zeros. Only a one-shot question whose answer reads none of them opens
// a core so (query.SkippedColumns).
func OpenColumns(s *shard.Shard, skipped func(table string) bool, skippedColumns shard.SkipColumn) (*Core, error) {
	if s.Kind != Kind {
		return nil, fmt.Errorf("shard kind is %q, want %q", s.Kind, Kind)
	}
	o := opener{s: s, skipped: skipped, skippedColumns: skippedColumns}
	c := &Core{Audit: model.Audit{}}

	if t := o.table(TableMeta); t != nil {
		if t.Rows != 1 {
			return nil, fmt.Errorf("table meta has %d rows, want 1", t.Rows)
		}
		c.Meta = model.Meta{
			Job: o.strs(t, "job")[0], OriginNS: o.ints(t, "origin_ns")[0], DurationNS: o.ints(t, "duration_ns")[0],
			SourceRoot: o.strs(t, "source_root")[0], Phase: o.strs(t, "phase")[0], TimeBasis: o.strs(t, "time_basis")[0],
			ClientKind: o.strs(t, "client_kind")[0], OTelEnabled: o.ints(t, "otel_enabled")[0] == 1,
		}
		// Added with metrics; earlier cores lack it.
		if col, ok := t.Column("iteration_timezone"); ok && col.Type == shard.String && len(col.Strings) == 1 {
			c.Meta.IterationTimezone = col.Strings[0]
		}
	}
	if t := o.table(TableNotes); t != nil {
		kind, text := o.strs(t, "kind"), o.strs(t, "text")
		for i := range t.Rows {
			switch kind[i] {
			case "limitation":
				c.Meta.Limitations = append(c.Meta.Limitations, text[i])
			case "warning":
				c.Meta.Warnings = append(c.Meta.Warnings, text[i])
			case "unread":
				c.Unread = append(c.Unread, text[i])
			}
		}
	}
	if t := o.table(TableAudit); t != nil {
		key, value := o.strs(t, "key"), o.ints(t, "value")
		for i := range t.Rows {
			c.Audit[key[i]] = value[i]
		}
	}
	if t := o.table(TableSources); t != nil {
		id, path, kind, size, sum := o.ints(t, "id"), o.strs(t, "path"), o.strs(t, "kind"), o.ints(t, "bytes"), o.strs(t, "sha256")
		for i := range t.Rows {
			c.Sources = append(c.Sources, model.Source{ID: int(id[i]), Path: path[i], Kind: kind[i], Bytes: size[i], SHA256: sum[i]})
		}
	}
	if t := o.table(TableRequests); t != nil {
		o.requests(t, &c.Requests)
	}
	if t := o.table(TableRequestIssues); t != nil {
		req, text := o.ints(t, "request"), o.strs(t, "text")
		c.Requests.Issues = map[int][]string{}
		for i := range t.Rows {
			if o.err == nil && (req[i] < 0 || req[i] >= int64(c.Requests.N)) {
				o.err = fmt.Errorf("request issue %d names request %d of %d", i, req[i], c.Requests.N)
				break
			}
			if o.err == nil {
				c.Requests.Issues[int(req[i])] = append(c.Requests.Issues[int(req[i])], text[i])
			}
		}
	}
	if t := o.table(TableSessions); t != nil {
		c.Sessions = Sessions{ID: o.strs(t, "id"), Start: o.ints(t, "start_ns"), End: o.ints(t, "end_ns")}
	}
	if t := o.table(TableAgents); t != nil {
		c.Agents = Agents{Session: o.ints(t, "session"), ID: o.strs(t, "id"), Parent: o.optStrs(t, "parent"), Depth: o.ints(t, "depth")}
	}
	if t := o.table(TableRequestOrder); t != nil {
		c.Requests.ByID = o.ints(t, "request")
	}
	if t := o.table(TableRequestServer); t != nil {
		c.Server = Server{
			Request: o.ints(t, "request"), ServerIDs: o.strs(t, "server_ids"), Workers: o.strs(t, "workers"),
			SpanCount: o.ints(t, "span_count"), LifecycleAvailable: o.ints(t, "lifecycle_available"),
			Chunk: o.ints(t, "chunk"), Slot: o.ints(t, "slot"),
		}
	}
	if t := o.table(TableServerSpans); t != nil {
		c.ServerSpans = ServerSpans{Start: o.ints(t, "start_ns"), End: o.ints(t, "end_ns"), Chunk: o.ints(t, "chunk"), Slot: o.ints(t, "slot")}
	}
	if t := o.table(TableSpanChunks); t != nil {
		c.SpanChunks, c.SpanChunkBytes = o.strs(t, "payload"), o.ints(t, "bytes")
	}
	o.metrics(c)
	o.batch(c)
	o.profiles(c)
	o.workerBindings(c)
	if o.err != nil {
		return nil, o.err
	}
	c.Requests.sessionIDs, c.Requests.agentIDs = c.Sessions.ID, c.Agents.ID
	return c, c.checkIndexes()
}

// checkIndexes rejects grouping indexes that point outside their tables, so
// readers can index without bounds surprises.
func (c *Core) checkIndexes() error {
	r := &c.Requests
	within := func(what string, vs []int64, n int) error {
		for i, v := range vs {
			if v < 0 || v >= int64(n) {
				return fmt.Errorf("%s %d is %d, outside 0..%d", what, i, v, n-1)
			}
		}
		return nil
	}
	if len(r.ByID) != r.N {
		return fmt.Errorf("request id order has %d rows for %d requests", len(r.ByID), r.N)
	}
	for _, check := range []error{
		within("server evidence request", c.Server.Request, r.N),
		within("server span chunk", c.ServerSpans.Chunk, len(c.SpanChunks)),
		within("request session index", r.SessionIndex, len(c.Sessions.ID)),
		within("request agent index", r.AgentIndex, len(c.Agents.Session)),
		within("agent session", c.Agents.Session, len(c.Sessions.ID)),
		within("request id order", r.ByID, r.N),
	} {
		if check != nil {
			return check
		}
	}
	return nil
}

// opener looks tables and columns up by name and type, remembering the first
// problem so the code above stays a flat list of reads.
type opener struct {
	s   *shard.Shard
	err error
	// skipped names the tables left undecoded on purpose (OpenTables),
	// skippedColumns the columns (OpenColumns).
	skipped        func(table string) bool
	skippedColumns shard.SkipColumn
}

// left says whether column name of t was left undecoded on purpose: it
// is read as nil, with no error.
func (o *opener) left(t *shard.Table, name string) bool {
	if o.skippedColumns == nil || !o.skippedColumns(t.Name, name) {
		return false
	}
	_, ok := t.Column(name)
	return !ok
}

func (o *opener) table(name string) *shard.Table {
	t, ok := o.s.Table(name)
	if !ok && o.skipped != nil && o.skipped(name) {
		return nil
	}
	if !ok && o.err == nil {
		o.err = fmt.Errorf("core shard lacks table %s", name)
	}
	if !ok {
		return nil
	}
	return t
}

func (o *opener) col(t *shard.Table, name string, typ shard.Type) *shard.Column {
	c, ok := t.Column(name)
	switch {
	case o.err != nil:
		return nil
	case !ok:
		o.err = fmt.Errorf("table %s: missing column %s", t.Name, name)
		return nil
	case c.Type != typ:
		o.err = fmt.Errorf("table %s: column %s is %v, want %v", t.Name, name, c.Type, typ)
		return nil
	}
	return c
}

// Getters return a zero-filled slice of the table's length after a problem,
// so callers never index a nil slice before o.err is checked.

func (o *opener) strs(t *shard.Table, name string) []string {
	if o.left(t, name) {
		return nil
	}
	if c := o.col(t, name, shard.String); c != nil {
		return c.Strings
	}
	return make([]string, t.Rows)
}

func (o *opener) optStrs(t *shard.Table, name string) Strings {
	if o.left(t, name) {
		return Strings{}
	}
	if c := o.col(t, name, shard.String); c != nil {
		return Strings{c.Strings, c.Valid}
	}
	return Strings{V: make([]string, t.Rows)}
}

func (o *opener) ints(t *shard.Table, name string) []int64 {
	if o.left(t, name) {
		return nil
	}
	if c := o.col(t, name, shard.Int64); c != nil {
		return c.Ints
	}
	return make([]int64, t.Rows)
}

func (o *opener) bools(t *shard.Table, name string) []bool {
	if o.left(t, name) {
		return nil
	}
	if c := o.col(t, name, shard.Bool); c != nil {
		return c.Bools
	}
	return make([]bool, t.Rows)
}

func (o *opener) optInts(t *shard.Table, name string) Ints {
	if o.left(t, name) {
		return Ints{}
	}
	if c := o.col(t, name, shard.Int64); c != nil {
		return Ints{c.Ints, c.Valid}
	}
	return Ints{V: make([]int64, t.Rows)}
}

func (o *opener) optFloats(t *shard.Table, name string) Floats {
	if o.left(t, name) {
		return Floats{}
	}
	if c := o.col(t, name, shard.Float64); c != nil {
		return Floats{c.Floats, c.Valid}
	}
	return Floats{V: make([]float64, t.Rows)}
}

func (o *opener) refs(t *shard.Table, name string) Refs {
	return Refs{Source: o.optInts(t, name+"_source"), Line: o.optInts(t, name+"_line")}
}

func (o *opener) requests(t *shard.Table, r *Requests) {
	*r = Requests{
		N: t.Rows, ID: o.strs(t, "id"),
		Parent: o.optStrs(t, "parent"), Conversation: o.optStrs(t, "conversation"), SourceTrace: o.optStrs(t, "source_trace"),
		Turn: o.optInts(t, "turn"), Depth: o.ints(t, "depth"),
		Start: o.ints(t, "start_ns"), End: o.ints(t, "end_ns"), First: o.optInts(t, "first_ns"), TTFT: o.optFloats(t, "ttft_ms"),
		InputTokens: o.optInts(t, "input_tokens"), OutputTokens: o.optInts(t, "output_tokens"), CachedTokens: o.optInts(t, "cached_tokens"),
		Status: o.strs(t, "status"), Error: o.optStrs(t, "error"), Phase: o.optStrs(t, "phase"), Worker: o.optStrs(t, "client_worker"),
		EvidenceSource: o.ints(t, "evidence_source"), EvidenceLine: o.ints(t, "evidence_line"),
		TimingQuality:    o.strs(t, "timing_quality"),
		IdentityEvidence: o.refs(t, "identity_evidence"), CacheUsageEvidence: o.refs(t, "cache_usage_evidence"), PhaseEvidence: o.refs(t, "phase_evidence"),
		OriginalStart: o.optStrs(t, "original_start"), OriginalEnd: o.optStrs(t, "original_end"),
		SessionIndex: o.ints(t, "session_index"), AgentIndex: o.ints(t, "agent_index"),
	}
}

// decodeAll decodes every record of every chunk, in order.
func decodeAll[T any](chunks int, raw func(int) ([]byte, error), record func(*EvidenceChunk, int) (*T, error)) []T {
	var out []T
	for k := range chunks {
		b, err := raw(k)
		if err != nil {
			continue
		}
		ch, err := DecodeEvidenceChunk(b)
		if err != nil {
			continue
		}
		for slot := range ch.Len() {
			if v, err := record(ch, slot); err == nil {
				out = append(out, *v)
			}
		}
	}
	return out
}
