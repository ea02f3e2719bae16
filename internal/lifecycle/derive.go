package lifecycle

import (
	"cmp"
	"slices"

	"github.com/dsight/dsight/internal/model"
)

// Layout names the lifecycle layout: cumulative rows ending at
// chronological milestones.
const Layout = "cumulative-milestones"

// Lifecycle is a request's server-side breakdown: plain values, shaped for
// every surface by internal/query. Times are absolute epoch nanoseconds.
type Lifecycle struct {
	Request    string
	Available  bool
	Layout     string
	Stages     []Stage
	Activities []Activity
	Milestones []Milestone
	Issues     []string
	// Rows[i] lists the ids of stages 0..i: row i is cumulative.
	Rows   [][]string
	Timing string
}

// Activity is a joined span from the lifecycle vocabulary.
type Activity struct {
	Span        *model.JoinedSpan
	Label       string
	Kind        string
	Description string
	// ParentActivity is the span id of the activity recorded as this
	// span's parent in the same trace; Depth is 1 under such a parent,
	// else 0.
	ParentActivity *string
	Depth          int
}

// Evidence points at the line (and, for a span, the ordinal within the
// line's record) a milestone was read from. Path is as the parsers
// recorded it; readers resolve it to a source.
type Evidence struct {
	Path    string
	Line    int64
	Ordinal *int
}

// Milestone is a recorded boundary that a stage ends at.
type Milestone struct {
	TimeNS     int64
	Label      string
	Role       string
	SpanID     string // "" for a client boundary
	Trace      string
	Boundary   string
	Evidence   Evidence
	Host       *string
	PhaseBasis string
}

// Stage is the elapsed time from one milestone to the next.
type Stage struct {
	ID           string
	Name         string
	Kind         string
	Row          int
	Label        string
	StartNS      int64
	EndNS        int64
	Role         string
	Host         *string
	FromBoundary Milestone
	ToBoundary   Milestone
	Evidence     Evidence
	SourceSpanID *string
	Description  string
}

// Labels of the client boundaries.
const (
	LabelClientStart    = "Client request start"
	LabelFirstToken     = "First client token"
	LabelClientComplete = "Client complete"
)

// Issues Derive reports. Any of them discards the server milestones.
const (
	IssueInvertedActivity = "A recorded activity ends before it starts; clocks are not corrected"
	IssueChildOutside     = "A recorded child is outside its parent; clocks are not corrected"
	IssueMultipleAttempts = "Multiple Dynamo request IDs: their attempt relationship is unverified; " +
		"progress is not linearized"
	IssueNoFirstToken   = "Client first-token timing is unavailable; no TTFT partition is inferred"
	IssueOutsideTTFT    = "Server milestones are outside client TTFT; clocks are not corrected"
	IssueFirstOutside   = "Client TTFT endpoint is outside the request; no duration partition is inferred"
	IssueInvertedClient = "Client request ends before it starts; no duration partition is inferred"
	repeatedSuffix      = ": cannot infer one sequential attempt"
	timingText          = "Appended blocks measure time between the named milestones. " +
		"Runtime activity retains its inclusive parent/child intervals on separate aligned tracks."
)

// Unavailable is the lifecycle of a request without supported activity:
// every list empty, never a breakdown synthesized from client timing.
func Unavailable(request string) Lifecycle {
	return Lifecycle{
		Request: request, Layout: Layout,
		Stages: []Stage{}, Activities: []Activity{}, Milestones: []Milestone{}, Issues: []string{}, Rows: [][]string{},
	}
}

// Derive builds a request's lifecycle from its joined spans. Activities are
// ordered by (start, -end, trace, id) and keep their recorded parents. A
// milestone is kept only when exactly one span can supply it; milestones
// are ordered by time, which asserts no causality between concurrent
// prefill and decode setup. Any issue, or unusable first-token timing,
// discards the server milestones: the stages then split the request only
// at the client's first token.
func Derive(r *model.RequestEvidence) Lifecycle {
	acts, milestones, issues := (&Scratch{}).derive(r)
	if len(acts) == 0 {
		return Unavailable(r.Client.ID)
	}
	c := &r.Client
	stages, rows := stagesTo(clientMilestone(c, c.StartNS, LabelClientStart, "request_start_ns"), milestones)
	return Lifecycle{
		Request: c.ID, Available: true, Layout: Layout,
		Stages: stages, Activities: acts, Milestones: milestones, Issues: nonNilStrings(issues), Rows: rows,
		Timing: timingText,
	}
}

// derive finds r's activities, its milestones and its issues, in sc's
// buffers; no activities when r has none in the vocabulary.
func (sc *Scratch) derive(r *model.RequestEvidence) (acts []Activity, milestones []Milestone, issues []string) {
	acts = sc.activities(r)
	if len(acts) == 0 {
		return nil, nil, nil
	}
	c := &r.Client
	issues = activityIssues(acts, sc.byKey)
	milestones, repeated := candidateMilestones(acts, sc.milestones[:0])
	sc.milestones = milestones
	issues = append(issues, repeated...)
	if len(r.ServerIDs) > 1 {
		issues = append(issues, IssueMultipleAttempts)
	}
	slices.SortStableFunc(milestones, func(a, b Milestone) int {
		return cmp.Or(cmp.Compare(a.TimeNS, b.TimeNS), cmp.Compare(a.Trace, b.Trace),
			cmp.Compare(a.SpanID, b.SpanID), cmp.Compare(a.Label, b.Label))
	})
	if c.FirstNS == nil {
		issues = append(issues, IssueNoFirstToken)
	} else {
		previous := c.StartNS
		for _, m := range milestones {
			if m.TimeNS < previous || m.TimeNS > *c.FirstNS {
				issues = append(issues, IssueOutsideTTFT)
				break
			}
			previous = m.TimeNS
		}
	}
	usableFirst := c.FirstNS != nil && c.StartNS <= *c.FirstNS && *c.FirstNS <= c.EndNS
	if c.FirstNS != nil && !usableFirst {
		issues = append(issues, IssueFirstOutside)
	}
	if c.EndNS < c.StartNS {
		issues = append(issues, IssueInvertedClient)
	}
	if len(issues) > 0 || !usableFirst {
		milestones = milestones[:0]
	}
	if usableFirst {
		milestones = append(milestones, clientMilestone(c, *c.FirstNS, LabelFirstToken, "client metric"))
	}
	milestones = append(milestones, clientMilestone(c, c.EndNS, LabelClientComplete, "request_end_ns"))
	if c.EndNS < c.StartNS {
		milestones = milestones[:0]
	}
	sc.milestones = milestones
	return acts, milestones, issues
}

// Available reports whether Derive finds supported lifecycle activity in
// the request, without rendering anything: the build needs only this.
func Available(r *model.RequestEvidence) bool {
	for k := range r.Spans {
		s := &r.Spans[k]
		phase := ""
		if s.Routing != nil {
			phase = s.Routing.Phase
		}
		if _, _, ok := ActivityFor(s.Name, s.Role(), phase); ok {
			return true
		}
	}
	return false
}

// activities lists the request's spans that belong to the lifecycle
// vocabulary, sorted, with their same-trace parents; sc.byKey is left
// indexing them by (trace, span id), first one first.
func (sc *Scratch) activities(r *model.RequestEvidence) []Activity {
	acts := sc.acts[:0]
	for k := range r.Spans {
		s := &r.Spans[k]
		phase := ""
		if s.Routing != nil {
			phase = s.Routing.Phase
		}
		label, kind, ok := ActivityFor(s.Name, s.Role(), phase)
		if !ok {
			continue
		}
		description := ActivityDescription(s.Name)
		if s.Routing != nil && s.Name == "kv_router.select_worker" {
			description = s.Routing.Basis
		}
		acts = append(acts, Activity{Span: s, Label: label, Kind: kind, Description: description})
	}
	slices.SortStableFunc(acts, func(a, b Activity) int {
		return cmp.Or(cmp.Compare(a.Span.StartNS, b.Span.StartNS), cmp.Compare(b.Span.EndNS, a.Span.EndNS),
			cmp.Compare(a.Span.TraceID, b.Span.TraceID), cmp.Compare(a.Span.SpanID, b.Span.SpanID))
	})
	sc.acts = acts
	if sc.byKey == nil {
		sc.byKey = make(map[spanKey]int, len(acts))
	} else {
		clear(sc.byKey)
	}
	byKey := sc.byKey
	for i := range acts {
		if _, dup := byKey[spanKey{acts[i].Span.TraceID, acts[i].Span.SpanID}]; !dup {
			byKey[spanKey{acts[i].Span.TraceID, acts[i].Span.SpanID}] = i
		}
	}
	for i := range acts {
		a := &acts[i]
		if a.Span.ParentSpanID == "" || a.Span.ParentSpanID == a.Span.SpanID {
			continue
		}
		if p, ok := byKey[spanKey{a.Span.TraceID, a.Span.ParentSpanID}]; ok {
			a.ParentActivity, a.Depth = &acts[p].Span.SpanID, 1
		}
	}
	return acts
}

// spanKey names a span within its trace.
type spanKey struct{ trace, id string }

// activityIssues are the issues of the activities themselves; byKey is
// activities' index of them.
func activityIssues(acts []Activity, byKey map[spanKey]int) []string {
	var issues []string
	for i := range acts {
		if acts[i].Span.EndNS < acts[i].Span.StartNS {
			issues = append(issues, IssueInvertedActivity)
			break
		}
	}
	for i := range acts {
		a := &acts[i]
		if a.ParentActivity == nil {
			continue
		}
		p := &acts[byKey[spanKey{a.Span.TraceID, *a.ParentActivity}]]
		if a.Span.StartNS < p.Span.StartNS || a.Span.EndNS > p.Span.EndNS {
			issues = append(issues, IssueChildOutside)
			break
		}
	}
	return issues
}

// candidateMilestones collects the server boundaries that a unique span
// supplies, and an issue for every boundary that several spans claim.
// They are appended to milestones.
func candidateMilestones(acts []Activity, milestones []Milestone) (_ []Milestone, issues []string) {
	add := func(name, label, role string, atStart bool) {
		var found *Activity
		for i := range acts {
			a := &acts[i]
			if a.Span.Name != name || (role != "" && a.Span.Role() != role) {
				continue
			}
			if found != nil {
				issues = append(issues, "Repeated "+joinWords(role, name)+repeatedSuffix)
				return
			}
			found = a
		}
		if found != nil {
			milestones = append(milestones, spanMilestone(found, label, atStart))
		}
	}
	add("request.preprocessing", "Preprocessing complete", "", false)
	for _, role := range []string{model.RolePrefill, model.RoleDecode, model.RoleAgg} {
		title := capitalize(role)
		var selected *Activity
		repeated := false
		for i := range acts {
			a := &acts[i]
			if a.Span.Name != "kv_router.select_worker" || a.Span.Routing == nil || model.CanonicalRole(a.Span.Routing.Phase) != role {
				continue
			}
			if selected != nil {
				repeated = true
				break
			}
			selected = a
		}
		if repeated {
			issues = append(issues, "Repeated "+role+" selection"+repeatedSuffix)
		} else if selected != nil {
			m := spanMilestone(selected, title+" route selected", false)
			m.PhaseBasis = selected.Span.Routing.Basis
			milestones = append(milestones, m)
		}
		add("worker.admission", title+" transport ready", role, false)
		add("request.dispatch", title+" response stream created", role, false)
		if role == model.RolePrefill {
			add("worker.operation.prefill", "Prefill response handling complete", role, false)
		}
	}
	add("response.streaming", "First frontend SSE ready", "", true)
	return milestones, issues
}

func spanMilestone(a *Activity, label string, atStart bool) Milestone {
	sp := a.Span
	ordinal := sp.Ref.Ordinal
	m := Milestone{
		Label: label, Role: sp.Role(), SpanID: sp.SpanID, Trace: sp.TraceID, Boundary: "end",
		Evidence: Evidence{Path: sp.Ref.Path, Line: sp.Ref.Line, Ordinal: &ordinal},
		Host:     RecordedHost(sp.Span), TimeNS: sp.EndNS,
	}
	if atStart {
		m.Boundary, m.TimeNS = "start", sp.StartNS
	}
	return m
}

func clientMilestone(c *model.ClientTiming, ns int64, label, boundary string) Milestone {
	return Milestone{Label: label, Role: "client", Boundary: boundary, Evidence: Evidence{Path: c.Evidence.Path, Line: c.Evidence.Line}, TimeNS: ns}
}

// RecordedHost is the span's non-empty dynamo.instance.id; nil when it
// records none. A collector directory is never a host.
func RecordedHost(sp *model.Span) *string {
	if h, ok := sp.Attrs.String("dynamo.instance.id"); ok && h != "" {
		return &h
	}
	return nil
}

// stagesTo partitions the time from start through each milestone in turn.
func stagesTo(start Milestone, milestones []Milestone) ([]Stage, [][]string) {
	stages := appendStages(make([]Stage, 0, len(milestones)), start, milestones, true)
	ids := make([]string, 0, len(stages))
	rows := make([][]string, 0, len(stages))
	for i := range stages {
		ids = append(ids, stages[i].ID)
		rows = append(rows, ids[:i+1:i+1])
	}
	return stages, rows
}

// appendStages appends the stages from start through each milestone in
// turn; describe adds each stage's Description, which only a request's own
// answer shows.
func appendStages(stages []Stage, start Milestone, milestones []Milestone, describe bool) []Stage {
	previous := start
	for i, m := range milestones {
		host := m.Host
		var source *string
		if h, client := stageHost(m); client {
			host = &h
		}
		if m.SpanID != "" {
			spanID := m.SpanID
			source = &spanID
		}
		st := Stage{
			ID: progressID(i), Name: "milestone_interval", Kind: "progress", Row: i, Label: m.Label,
			StartNS: previous.TimeNS, EndNS: m.TimeNS, Role: m.Role, Host: host,
			FromBoundary: previous, ToBoundary: m, Evidence: m.Evidence, SourceSpanID: source,
		}
		if describe {
			st.Description = "Elapsed time from " + previous.Label + " to " + m.Label + ". " +
				"Includes any intervening gaps and concurrent work; not exclusive engine time."
		}
		stages = append(stages, st)
		previous = m
	}
	return stages
}

// stageHost is the host of the stage that ends at m: "client" for a
// client boundary (client is then true), else m's recorded host, "" when
// none is.
func stageHost(m Milestone) (host string, client bool) {
	if m.Role == "client" {
		return "client", true
	}
	if m.Host != nil {
		return *m.Host, false
	}
	return "", false
}

func joinWords(role, name string) string {
	if role == "" {
		return name
	}
	return role + " " + name
}

// capitalize upper-cases the first letter of a canonical role.
func capitalize(role string) string {
	if role == "" {
		return role
	}
	return string(role[0]-'a'+'A') + role[1:]
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
