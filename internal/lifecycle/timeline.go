package lifecycle

import "github.com/dsight/dsight/internal/model"

// Scratch holds the buffers a derivation reuses from one request to the
// next. A trace export draws the lifecycle of every request of a run, a
// hundred thousand and more: deriving each into fresh slices and maps (and
// the words every stage carries) was most of what it allocated.
type Scratch struct {
	acts       []Activity
	byKey      map[spanKey]int
	milestones []Milestone
	extents    []Extent
	stages     []Stage
}

// Extent is a stage as a timeline draws it: where it starts and ends, its
// label, and what it was read from. Host is "" when none is recorded.
type Extent struct {
	Label, Role, Host string
	StartNS, EndNS    int64
	Evidence          Evidence
}

// Timeline is Derive's activities and stages of r, the stages as extents,
// in sc's buffers: both are valid until sc's next use. A request without
// supported activity has neither.
func (sc *Scratch) Timeline(r *model.RequestEvidence) (acts []Activity, stages []Extent) {
	acts, milestones, _ := sc.derive(r)
	if len(acts) == 0 {
		return nil, nil
	}
	stages = sc.extents[:0]
	previous := r.Client.StartNS
	for _, m := range milestones {
		host, _ := stageHost(m)
		stages = append(stages, Extent{Label: m.Label, Role: m.Role, Host: host, StartNS: previous, EndNS: m.TimeNS, Evidence: m.Evidence})
		previous = m.TimeNS
	}
	sc.extents = stages
	return acts, stages
}
