package catalog

import (
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Kind names the core shard.
const Kind = "core"

// EvidenceKind names the shard of server evidence chunks. It is separate
// from the core so the page can draw the timeline while it still loads:
// at 2M spans it is 100 MB, the core without it a few.
const EvidenceKind = "evidence"

// Table names of the core shard, in the order they are written.
const (
	TableMeta          = "meta"
	TableNotes         = "notes" // limitations, warnings and unread files, one per row
	TableAudit         = "audit"
	TableSources       = "sources"
	TableRequests      = "requests"
	TableRequestIssues = "request_issues"
	TableSessions      = "sessions"
	TableAgents        = "agents"
	TableRequestOrder  = "request_id_order"   // request indexes sorted by id, for lookups without a map
	TableRequestServer = "request_server"     // server evidence joined to requests, one row per such request
	TableServerChunks  = "server_chunks"      // joined server evidence, deflated, EvidencePerChunk requests per row (evidence shard)
	TableServerSpans   = "server_spans"       // server spans no request owns: times and where each is stored
	TableSpanChunks    = "server_span_chunks" // those spans' evidence, deflated, EvidencePerChunk spans per row
)

// MaxRequests is the most requests a core holds: a table has at most
// shard.MaxRows rows.
const MaxRequests = shard.MaxRows

// Encode lays d out as the core shard.
func Encode(d *model.Dataset) *shard.Shard {
	m := d.Meta
	one := func(name string, v string) shard.Column { return strCol(name, 1, func(int) string { return v }) }
	meta := shard.Table{Name: TableMeta, Rows: 1, Columns: []shard.Column{
		one("job", m.Job),
		intCol("origin_ns", 1, func(int) int64 { return m.OriginNS }),
		intCol("duration_ns", 1, func(int) int64 { return m.DurationNS }),
		one("source_root", m.SourceRoot),
		one("phase", m.Phase),
		one("time_basis", m.TimeBasis),
		one("client_kind", m.ClientKind),
		intCol("otel_enabled", 1, func(int) int64 { return boolInt(m.OTelEnabled) }),
		one("iteration_timezone", m.IterationTimezone),
	}}

	type note struct{ kind, text string }
	var notes []note
	for _, s := range m.Limitations {
		notes = append(notes, note{"limitation", s})
	}
	for _, s := range m.Warnings {
		notes = append(notes, note{"warning", s})
	}
	for _, s := range d.Unread {
		notes = append(notes, note{"unread", s})
	}
	notesT := shard.Table{Name: TableNotes, Rows: len(notes), Columns: []shard.Column{
		strCol("kind", len(notes), func(i int) string { return notes[i].kind }),
		strCol("text", len(notes), func(i int) string { return notes[i].text }),
	}}

	keys := make([]string, 0, len(d.Audit))
	for k := range d.Audit {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	audit := shard.Table{Name: TableAudit, Rows: len(keys), Columns: []shard.Column{
		strCol("key", len(keys), func(i int) string { return keys[i] }),
		intCol("value", len(keys), func(i int) int64 { return d.Audit[keys[i]] }),
	}}

	src := d.Sources
	n := len(src)
	sources := shard.Table{Name: TableSources, Rows: n, Columns: []shard.Column{
		intCol("id", n, func(i int) int64 { return int64(src[i].ID) }),
		strCol("path", n, func(i int) string { return src[i].Path }),
		strCol("kind", n, func(i int) string { return src[i].Kind }),
		intCol("bytes", n, func(i int) int64 { return src[i].Bytes }),
		strCol("sha256", n, func(i int) string { return src[i].SHA256 }),
	}}

	rs := d.Requests
	n = len(rs)
	// Sessions and agents are grouped here, at build time, so that a reader
	// gets them as plain indexes instead of regrouping every request.
	groups := model.GroupSessions(rs)
	sessionOf, agentOf := make([]int64, n), make([]int64, n)
	type agentRow struct {
		session int
		agent   model.Agent
	}
	var agents []agentRow
	for si, g := range groups {
		for _, a := range g.Agents {
			for _, ri := range a.Requests {
				sessionOf[ri], agentOf[ri] = int64(si), int64(len(agents))
			}
			agents = append(agents, agentRow{si, a})
		}
	}
	sessionsT := shard.Table{Name: TableSessions, Rows: len(groups), Columns: []shard.Column{
		strCol("id", len(groups), func(i int) string { return groups[i].ID }),
		intCol("start_ns", len(groups), func(i int) int64 { return groups[i].StartNS }),
		intCol("end_ns", len(groups), func(i int) int64 { return groups[i].EndNS }),
	}}
	agentsT := shard.Table{Name: TableAgents, Rows: len(agents), Columns: []shard.Column{
		intCol("session", len(agents), func(i int) int64 { return int64(agents[i].session) }),
		strCol("id", len(agents), func(i int) string { return agents[i].agent.ID }),
		optStrCol("parent", len(agents), func(i int) *string { return agents[i].agent.Parent }),
		intCol("depth", len(agents), func(i int) int64 { return agents[i].agent.Depth }),
	}}
	order := make([]int64, n)
	for i := range order {
		order[i] = int64(i)
	}
	sort.Slice(order, func(a, b int) bool { return rs[order[a]].ID < rs[order[b]].ID })
	orderT := shard.Table{Name: TableRequestOrder, Rows: n, Columns: []shard.Column{
		intCol("request", n, func(i int) int64 { return order[i] }),
	}}

	requests := shard.Table{Name: TableRequests, Rows: n, Columns: []shard.Column{
		strCol("id", n, func(i int) string { return rs[i].ID }),
		optStrCol("parent", n, func(i int) *string { return rs[i].Parent }),
		optStrCol("conversation", n, func(i int) *string { return rs[i].Conversation }),
		optStrCol("source_trace", n, func(i int) *string { return rs[i].SourceTrace }),
		optIntCol("turn", n, func(i int) *int64 { return rs[i].Turn }),
		intCol("depth", n, func(i int) int64 { return rs[i].Depth }),
		intCol("start_ns", n, func(i int) int64 { return rs[i].StartNS }),
		intCol("end_ns", n, func(i int) int64 { return rs[i].EndNS }),
		optIntCol("first_ns", n, func(i int) *int64 { return rs[i].FirstNS }),
		optFloatCol("ttft_ms", n, func(i int) *float64 { return rs[i].TTFTms }),
		optIntCol("input_tokens", n, func(i int) *int64 { return rs[i].InputTokens }),
		optIntCol("output_tokens", n, func(i int) *int64 { return rs[i].OutputTokens }),
		optIntCol("cached_tokens", n, func(i int) *int64 { return rs[i].CachedTokens }),
		strCol("status", n, func(i int) string { return rs[i].Status }),
		optStrCol("error", n, func(i int) *string { return rs[i].Error }),
		optStrCol("phase", n, func(i int) *string { return rs[i].Phase }),
		optStrCol("client_worker", n, func(i int) *string { return rs[i].Worker }),
		intCol("evidence_source", n, func(i int) int64 { return int64(rs[i].Evidence.Source) }),
		intCol("evidence_line", n, func(i int) int64 { return rs[i].Evidence.Line }),
		strCol("timing_quality", n, func(i int) string { return rs[i].TimingQuality }),
		optRefSource("identity_evidence_source", n, func(i int) *model.Ref { return rs[i].IdentityEvidence }),
		optRefLine("identity_evidence_line", n, func(i int) *model.Ref { return rs[i].IdentityEvidence }),
		optRefSource("cache_usage_evidence_source", n, func(i int) *model.Ref { return rs[i].CacheUsageEvidence }),
		optRefLine("cache_usage_evidence_line", n, func(i int) *model.Ref { return rs[i].CacheUsageEvidence }),
		optRefSource("phase_evidence_source", n, func(i int) *model.Ref { return rs[i].PhaseEvidence }),
		optRefLine("phase_evidence_line", n, func(i int) *model.Ref { return rs[i].PhaseEvidence }),
		optStrCol("original_start", n, func(i int) *string { return rs[i].OriginalStart }),
		optStrCol("original_end", n, func(i int) *string { return rs[i].OriginalEnd }),
		intCol("session_index", n, func(i int) int64 { return sessionOf[i] }),
		intCol("agent_index", n, func(i int) int64 { return agentOf[i] }),
	}}

	type issue struct {
		request int
		text    string
	}
	var issues []issue
	for i := range rs {
		for _, s := range rs[i].Issues {
			issues = append(issues, issue{i, s})
		}
	}
	issuesT := shard.Table{Name: TableRequestIssues, Rows: len(issues), Columns: []shard.Column{
		intCol("request", len(issues), func(i int) int64 { return int64(issues[i].request) }),
		strCol("text", len(issues), func(i int) string { return issues[i].text }),
	}}

	var withServer []int
	for i := range rs {
		if rs[i].Server != nil {
			withServer = append(withServer, i)
		}
	}
	sv := func(k int) *model.RequestServer { return rs[withServer[k]].Server }
	n = len(withServer)
	serverT := shard.Table{Name: TableRequestServer, Rows: n, Columns: []shard.Column{
		intCol("request", n, func(k int) int64 { return int64(withServer[k]) }),
		strCol("server_ids", n, func(k int) string { return joinList(sv(k).ServerIDs) }),
		strCol("workers", n, func(k int) string { return joinList(sv(k).Workers) }),
		intCol("span_count", n, func(k int) int64 { return int64(sv(k).SpanCount) }),
		intCol("lifecycle_available", n, func(k int) int64 { return boolInt(sv(k).LifecycleAvailable) }),
		intCol("chunk", n, func(k int) int64 { return int64(sv(k).Evidence / EvidencePerChunk) }),
		intCol("slot", n, func(k int) int64 { return int64(sv(k).Evidence % EvidencePerChunk) }),
	}}
	ss, origin := d.ServerSpans, d.Meta.OriginNS
	n = len(ss)
	serverSpansT := shard.Table{Name: TableServerSpans, Rows: n, Columns: []shard.Column{
		intCol("start_ns", n, func(k int) int64 { return ss[k].StartNS - origin }),
		intCol("end_ns", n, func(k int) int64 { return ss[k].EndNS - origin }),
		intCol("chunk", n, func(k int) int64 { return int64(k / EvidencePerChunk) }),
		intCol("slot", n, func(k int) int64 { return int64(k % EvidencePerChunk) }),
	}}
	spanChunks := encodeChunks(len(ss), func(w *EvidenceWriter, k int) { w.AddSpan(&ss[k]) })
	spanChunksT := chunkTable(TableSpanChunks, spanChunks)

	tables := []shard.Table{meta, notesT, audit, sources, requests, issuesT, sessionsT, agentsT, orderT, serverT, serverSpansT, spanChunksT}
	tables = append(tables, encodeMetrics(d)...)
	tables = append(tables, encodeProfiles(d)...)
	if len(d.BatchObservations) > 0 { // cores without observations stay as they were
		tables = append(tables, encodeBatch(d))
	}
	if len(d.Evidence) > 0 { // cores without server evidence stay as they were
		tables = append(tables, encodeWorkerBindings(d))
	} else if s, ok := d.StreamedEvidence.(*StreamedEvidence); ok && s.n > 0 {
		tables = append(tables, s.bindings.table())
	}
	return &shard.Shard{Kind: Kind, Tables: tables}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Lists of ids are stored one per line: ids never contain a newline (the
// parsers read them from single log and JSON lines).
func joinList(ids []string) string { return strings.Join(ids, "\n") }

func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\n")
}

// EvidenceShard maps the dataset's server evidence to its shard,
// EvidencePerChunk requests to a chunk, each chunk deflated on its own;
// nil when the run has none. An import's evidence is encoded already
// (Dataset.StreamedEvidence): its shard is read back whole (the report
// writer takes it piece by piece instead), and a chunk kept on disk that
// cannot be read back is an error.
func EvidenceShard(d *model.Dataset) (*shard.Shard, error) {
	if s, ok := d.StreamedEvidence.(*StreamedEvidence); ok && len(d.Evidence) == 0 {
		return s.Shard()
	}
	return EncodeEvidence(d), nil
}

// EncodeEvidence is EvidenceShard of evidence held in memory (d.Evidence),
// which cannot fail; nil when there is none.
func EncodeEvidence(d *model.Dataset) *shard.Shard {
	if len(d.Evidence) == 0 {
		return nil
	}
	ev := d.Evidence
	chunks := encodeChunks(len(ev), func(w *EvidenceWriter, k int) { w.AddRequest(&ev[k]) })
	return &shard.Shard{Kind: EvidenceKind, Tables: []shard.Table{chunkTable(TableServerChunks, chunks)}}
}

// Decode rebuilds the whole dataset from a core shard and, when the run
// has server evidence, its evidence shard.
func Decode(core, evidence *shard.Shard) (*model.Dataset, error) {
	c, err := Open(core)
	if err != nil {
		return nil, err
	}
	if evidence != nil {
		if err := c.AttachEvidence(evidence); err != nil {
			return nil, err
		}
	}
	return c.Dataset(), nil
}
