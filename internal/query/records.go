package query

import (
	"strconv"

	"github.com/dsight/dsight/internal/model"
)

// Evidence names the source file and line behind a record.
type Evidence struct {
	Source int    `json:"source"`
	Path   string `json:"path"`
	Line   int64  `json:"line"`
}

// RequestItem is a request as list answers show it.
type RequestItem struct {
	ID           string   `json:"id"`
	Session      string   `json:"session"`
	Agent        string   `json:"agent"`
	Parent       *string  `json:"parent"`
	Conversation *string  `json:"conversation"`
	SourceTrace  *string  `json:"source_trace"`
	Turn         *int64   `json:"turn"`
	Depth        int64    `json:"depth"`
	Start        float64  `json:"start"`
	End          float64  `json:"end"`
	First        *float64 `json:"first"`
	TTFTms       *float64 `json:"ttft_ms"`
	InputTokens  *int64   `json:"input_tokens"`
	OutputTokens *int64   `json:"output_tokens"`
	CachedTokens *int64   `json:"cached_tokens"`
	Status       string   `json:"status"`
	Error        *string  `json:"error"`
	Phase        *string  `json:"phase"`
	ClientWorker *string  `json:"client_worker"`
	ClientKind   string   `json:"client_kind"`
	Evidence     Evidence `json:"evidence"`
	// TimingQuality names where the times come from ("client export", "phase analysis", "request log (liveness)").
	TimingQuality      string    `json:"timing_quality"`
	IdentityEvidence   *Evidence `json:"identity_evidence"`
	CacheUsageEvidence *Evidence `json:"cache_usage_evidence"`
	PhaseEvidence      *Evidence `json:"phase_evidence"`
	OriginalStartTime  *string   `json:"original_start_time"`
	OriginalEndTime    *string   `json:"original_end_time"`
	Issues             []string  `json:"issues"`
	RawStartNS         string    `json:"raw_start_ns"`
	RawEndNS           string    `json:"raw_end_ns"`
	ServerIDs          []string  `json:"server_ids"`
	Workers            []string  `json:"workers"`
	SpanCount          int       `json:"span_count"`
}

// RequestDetail is one request with its collections, as getRequest shows it.
// The server records are rendered from the request's stored evidence when
// asked (see serverdetail.go).
type RequestDetail struct {
	RequestItem
	ServerDetail
	// EvidencePending: the request has server evidence the page has not
	// loaded yet; the lists and lifecycle say nothing about it until then.
	EvidencePending bool `json:"evidence_pending,omitempty"`
}

func (e *Engine) item(i int) RequestItem {
	row := e.r.Row(i)
	r := &row
	it := RequestItem{
		ID: r.ID, Session: r.Session, Agent: r.Agent, Parent: r.Parent,
		Conversation: r.Conversation, SourceTrace: r.SourceTrace, Turn: r.Turn, Depth: r.Depth,
		Start: seconds(r.StartNS), End: seconds(r.EndNS), TTFTms: r.TTFTms,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CachedTokens: r.CachedTokens,
		Status: r.Status, Error: r.Error, Phase: r.Phase, ClientWorker: r.Worker,
		ClientKind:         e.c.Meta.ClientKind,
		Evidence:           e.evidence(r.Evidence),
		TimingQuality:      r.TimingQuality,
		IdentityEvidence:   e.optEvidence(r.IdentityEvidence),
		CacheUsageEvidence: e.optEvidence(r.CacheUsageEvidence),
		PhaseEvidence:      e.optEvidence(r.PhaseEvidence),
		OriginalStartTime:  r.OriginalStart,
		OriginalEndTime:    r.OriginalEnd,
		Issues:             nonNil(r.Issues),
		RawStartNS:         strconv.FormatInt(e.c.Meta.OriginNS+r.StartNS, 10),
		RawEndNS:           strconv.FormatInt(e.c.Meta.OriginNS+r.EndNS, 10),
		ServerIDs:          e.serverList(i, e.c.Server.ServerIDs),
		Workers:            e.serverList(i, e.c.Server.Workers),
	}
	if k := e.serverRow[i]; k >= 0 {
		it.SpanCount = int(e.c.Server.SpanCount[k])
	}
	it.First = optSeconds(r.FirstNS)
	return it
}

func (e *Engine) evidence(ref model.Ref) Evidence {
	ev := Evidence{Source: ref.Source, Line: ref.Line}
	if i, ok := e.sourceByID[ref.Source]; ok {
		ev.Path = e.c.Sources[i].Path
	}
	return ev
}

func (e *Engine) optEvidence(ref *model.Ref) *Evidence {
	if ref == nil {
		return nil
	}
	ev := e.evidence(*ref)
	return &ev
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
