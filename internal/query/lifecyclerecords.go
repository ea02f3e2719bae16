package query

import "github.com/dsight/dsight/internal/lifecycle"

// LifecycleRecord is a request's server-side breakdown as the contract
// shows it (reference behaviour §3.6), rendered from internal/lifecycle's
// derivation.
type LifecycleRecord struct {
	Request    string            `json:"request"`
	Available  bool              `json:"available"`
	Layout     string            `json:"layout"`
	Stages     []StageRecord     `json:"stages"`
	Activities []ActivityRecord  `json:"activities"`
	Milestones []MilestoneRecord `json:"milestones"`
	Issues     []string          `json:"issues"`
	// Rows[i] lists the ids of stages 0..i: row i is cumulative.
	Rows   [][]string `json:"rows"`
	Timing string     `json:"timing"`
}

// ActivityRecord is a joined span from the lifecycle vocabulary.
type ActivityRecord struct {
	SpanRecord
	Label          string  `json:"label"`
	Kind           string  `json:"kind"`
	Description    string  `json:"description"`
	ParentActivity *string `json:"parent_activity"`
	Depth          int     `json:"depth"`
}

// MilestoneRecord is a recorded boundary that a stage ends at.
type MilestoneRecord struct {
	Time       float64        `json:"time"`
	Label      string         `json:"label"`
	Role       string         `json:"role"`
	SpanID     string         `json:"span_id,omitempty"`
	Trace      string         `json:"trace,omitempty"`
	Boundary   string         `json:"boundary"`
	Evidence   EvidenceRecord `json:"evidence"`
	Host       *string        `json:"host,omitempty"`
	PhaseBasis string         `json:"phase_basis,omitempty"`
}

// StageRecord is the elapsed time from one milestone to the next.
type StageRecord struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Kind         string          `json:"kind"`
	Row          int             `json:"row"`
	Label        string          `json:"label"`
	Start        float64         `json:"start"`
	End          float64         `json:"end"`
	Role         string          `json:"role"`
	Host         *string         `json:"host"`
	FromBoundary MilestoneRecord `json:"from_boundary"`
	ToBoundary   MilestoneRecord `json:"to_boundary"`
	Evidence     EvidenceRecord  `json:"evidence"`
	SourceSpanID *string         `json:"source_span_id"`
	Description  string          `json:"description"`
}

func (f frame) lifecycle(l lifecycle.Lifecycle) LifecycleRecord {
	out := LifecycleRecord{
		Request: l.Request, Available: l.Available, Layout: l.Layout,
		Stages:     make([]StageRecord, 0, len(l.Stages)),
		Activities: make([]ActivityRecord, 0, len(l.Activities)),
		Milestones: make([]MilestoneRecord, 0, len(l.Milestones)),
		Issues:     nonNil(l.Issues), Rows: nonNil(l.Rows), Timing: l.Timing,
	}
	for _, s := range l.Stages {
		out.Stages = append(out.Stages, StageRecord{
			ID: s.ID, Name: s.Name, Kind: s.Kind, Row: s.Row, Label: s.Label,
			Start: f.seconds(s.StartNS), End: f.seconds(s.EndNS), Role: s.Role, Host: s.Host,
			FromBoundary: f.milestone(s.FromBoundary), ToBoundary: f.milestone(s.ToBoundary),
			Evidence: f.lifecycleEvidence(s.Evidence), SourceSpanID: s.SourceSpanID, Description: s.Description,
		})
	}
	for _, a := range l.Activities {
		out.Activities = append(out.Activities, ActivityRecord{
			SpanRecord: f.spanRecord(a.Span), Label: a.Label, Kind: a.Kind, Description: a.Description,
			ParentActivity: a.ParentActivity, Depth: a.Depth,
		})
	}
	for _, m := range l.Milestones {
		out.Milestones = append(out.Milestones, f.milestone(m))
	}
	return out
}

func (f frame) milestone(m lifecycle.Milestone) MilestoneRecord {
	return MilestoneRecord{
		Time: f.seconds(m.TimeNS), Label: m.Label, Role: m.Role, SpanID: m.SpanID, Trace: m.Trace,
		Boundary: m.Boundary, Evidence: f.lifecycleEvidence(m.Evidence), Host: m.Host, PhaseBasis: m.PhaseBasis,
	}
}

// unavailableLifecycle is the answer for a request without server evidence:
// every list empty, never a breakdown synthesized from client timing.
func unavailableLifecycle(id string) LifecycleRecord {
	return frame{}.lifecycle(lifecycle.Unavailable(id))
}
