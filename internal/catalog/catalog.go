package catalog

import (
	"fmt"
	"sort"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Kind names the core shard.
const Kind = "core"

// Table names of the core shard, in the order they are written.
const (
	TableMeta          = "meta"
	TableNotes         = "notes" // limitations, warnings and unread files, one per row
	TableAudit         = "audit"
	TableSources       = "sources"
	TableRequests      = "requests"
	TableRequestIssues = "request_issues"
)

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
	requests := shard.Table{Name: TableRequests, Rows: n, Columns: []shard.Column{
		strCol("id", n, func(i int) string { return rs[i].ID }),
		strCol("session", n, func(i int) string { return rs[i].Session }),
		strCol("agent", n, func(i int) string { return rs[i].Agent }),
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

	return &shard.Shard{Kind: Kind, Tables: []shard.Table{meta, notesT, audit, sources, requests, issuesT}}
}

// Decode rebuilds the dataset from a core shard.
func Decode(s *shard.Shard) (*model.Dataset, error) {
	if s.Kind != Kind {
		return nil, fmt.Errorf("shard kind is %q, want %q", s.Kind, Kind)
	}
	tables := map[string]*shard.Table{}
	for i := range s.Tables {
		tables[s.Tables[i].Name] = &s.Tables[i]
	}
	need := func(name string) (*reader, error) {
		t, ok := tables[name]
		if !ok {
			return nil, fmt.Errorf("core shard lacks table %s", name)
		}
		return &reader{t: t}, nil
	}
	d := &model.Dataset{Audit: model.Audit{}}

	r, err := need(TableMeta)
	if err != nil {
		return nil, err
	}
	if r.t.Rows != 1 {
		return nil, fmt.Errorf("table meta has %d rows, want 1", r.t.Rows)
	}
	d.Meta = model.Meta{
		Job: r.strs("job")(0), OriginNS: r.ints("origin_ns")(0), DurationNS: r.ints("duration_ns")(0),
		SourceRoot: r.strs("source_root")(0), Phase: r.strs("phase")(0), TimeBasis: r.strs("time_basis")(0),
		ClientKind: r.strs("client_kind")(0),
	}
	if r.err != nil {
		return nil, r.err
	}

	if r, err = need(TableNotes); err != nil {
		return nil, err
	}
	kind, text := r.strs("kind"), r.strs("text")
	for i := range r.t.Rows {
		switch kind(i) {
		case "limitation":
			d.Meta.Limitations = append(d.Meta.Limitations, text(i))
		case "warning":
			d.Meta.Warnings = append(d.Meta.Warnings, text(i))
		case "unread":
			d.Unread = append(d.Unread, text(i))
		}
	}
	if r.err != nil {
		return nil, r.err
	}

	if r, err = need(TableAudit); err != nil {
		return nil, err
	}
	key, value := r.strs("key"), r.ints("value")
	for i := range r.t.Rows {
		d.Audit[key(i)] = value(i)
	}
	if r.err != nil {
		return nil, r.err
	}

	if r, err = need(TableSources); err != nil {
		return nil, err
	}
	id, path, skind, size, sum := r.ints("id"), r.strs("path"), r.strs("kind"), r.ints("bytes"), r.strs("sha256")
	for i := range r.t.Rows {
		d.Sources = append(d.Sources, model.Source{ID: int(id(i)), Path: path(i), Kind: skind(i), Bytes: size(i), SHA256: sum(i)})
	}
	if r.err != nil {
		return nil, r.err
	}

	if r, err = need(TableRequests); err != nil {
		return nil, err
	}
	if err := decodeRequests(r, d); err != nil {
		return nil, err
	}

	if r, err = need(TableRequestIssues); err != nil {
		return nil, err
	}
	req, itext := r.ints("request"), r.strs("text")
	for i := range r.t.Rows {
		k := req(i)
		if k < 0 || k >= int64(len(d.Requests)) {
			return nil, fmt.Errorf("request issue %d names request %d of %d", i, k, len(d.Requests))
		}
		d.Requests[k].Issues = append(d.Requests[k].Issues, itext(i))
	}
	return d, r.err
}

func decodeRequests(r *reader, d *model.Dataset) error {
	var (
		id, session, agent                = r.strs("id"), r.strs("session"), r.strs("agent")
		parent, conversation, sourceTrace = r.optStrs("parent"), r.optStrs("conversation"), r.optStrs("source_trace")
		turn, depth                       = r.optInts("turn"), r.ints("depth")
		start, end, first                 = r.ints("start_ns"), r.ints("end_ns"), r.optInts("first_ns")
		ttft                              = r.optFloats("ttft_ms")
		inTok, outTok, cached             = r.optInts("input_tokens"), r.optInts("output_tokens"), r.optInts("cached_tokens")
		status, errText, phase, worker    = r.strs("status"), r.optStrs("error"), r.optStrs("phase"), r.optStrs("client_worker")
		evidenceSource, evidenceLine      = r.ints("evidence_source"), r.ints("evidence_line")
		timingQuality                     = r.strs("timing_quality")
		identityEvidence                  = r.optRef("identity_evidence")
		cacheEvidence                     = r.optRef("cache_usage_evidence")
		phaseEvidence                     = r.optRef("phase_evidence")
		originalStart, originalEnd        = r.optStrs("original_start"), r.optStrs("original_end")
	)
	if r.err != nil {
		return r.err
	}
	d.Requests = make([]model.Request, r.t.Rows)
	for i := range d.Requests {
		d.Requests[i] = model.Request{
			ID: id(i), Session: session(i), Agent: agent(i),
			Parent: parent(i), Conversation: conversation(i), SourceTrace: sourceTrace(i),
			Turn: turn(i), Depth: depth(i),
			StartNS: start(i), EndNS: end(i), FirstNS: first(i), TTFTms: ttft(i),
			InputTokens: inTok(i), OutputTokens: outTok(i), CachedTokens: cached(i),
			Status: status(i), Error: errText(i), Phase: phase(i), Worker: worker(i),
			Evidence:      model.Ref{Source: int(evidenceSource(i)), Line: evidenceLine(i)},
			TimingQuality: timingQuality(i), IdentityEvidence: identityEvidence(i),
			CacheUsageEvidence: cacheEvidence(i), PhaseEvidence: phaseEvidence(i),
			OriginalStart: originalStart(i), OriginalEnd: originalEnd(i),
		}
	}
	return nil
}
