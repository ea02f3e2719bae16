package sessionmetrics

import "github.com/dsight/dsight/internal/model"

// The derivation reads each kept request once into a row without pointers:
// a build holds millions of model.Request (strings and pointer fields the
// collector scans on every cycle), and a derivation that walked them, or
// kept slices of pointers to them, made every collection during it scan
// them again, so its cost grew faster than the requests did. Rows of plain
// numbers are never scanned, and every pass walks one dense array.

// req is one kept request: times in ns from the origin, the first token,
// TTFT and token counts valid only where their flag says so.
type req struct {
	start, end, first int64
	ttftMS            float64
	in, out           int64
	phase             int32 // index in reqs.phases; -1 when none was recorded
	flags             uint8
	status            uint8
}

const (
	flagFirst uint8 = 1 << iota
	flagTTFT
	flagIn
	flagOut
)

// Statuses as the series tell them apart.
const (
	statusOther uint8 = iota
	statusCompleted
	statusError
	statusCancelled
)

// reqs are the kept requests, with the recorded phases and, per server
// worker, the requests it served (ascending indices).
type reqs struct {
	rows    []req
	phases  []string
	workers map[string][]int32
	// roles is each worker's recorded role ("" unknown); nil without
	// joined evidence.
	roles map[string]string
}

// add appends r (a kept request).
func (rs *reqs) add(r *model.Request) {
	x := req{start: r.StartNS, end: r.EndNS, phase: -1}
	if r.FirstNS != nil {
		x.first, x.flags = *r.FirstNS, x.flags|flagFirst
	}
	if r.TTFTms != nil {
		x.ttftMS, x.flags = *r.TTFTms, x.flags|flagTTFT
	}
	if r.InputTokens != nil {
		x.in, x.flags = *r.InputTokens, x.flags|flagIn
	}
	if r.OutputTokens != nil {
		x.out, x.flags = *r.OutputTokens, x.flags|flagOut
	}
	switch r.Status {
	case model.StatusCompleted:
		x.status = statusCompleted
	case model.StatusError:
		x.status = statusError
	case model.StatusCancelled:
		x.status = statusCancelled
	}
	if r.Phase != nil {
		x.phase = -1
		for k, p := range rs.phases {
			if p == *r.Phase {
				x.phase = int32(k)
				break
			}
		}
		if x.phase < 0 {
			x.phase = int32(len(rs.phases))
			rs.phases = append(rs.phases, *r.Phase)
		}
	}
	k := int32(len(rs.rows))
	if r.Server != nil {
		for i, w := range r.Server.Workers {
			if containsBefore(r.Server.Workers, i) {
				continue // a worker listed twice serves the request once
			}
			if rs.workers == nil {
				rs.workers = map[string][]int32{}
			}
			rs.workers[w] = append(rs.workers[w], k)
		}
	}
	rs.rows = append(rs.rows, x)
}

// containsBefore reports whether ws[i] also appears before i.
func containsBefore(ws []string, i int) bool {
	for _, w := range ws[:i] {
		if w == ws[i] {
			return true
		}
	}
	return false
}

// collect reads the kept requests of list into rows.
func collect(list []*model.Request) *reqs {
	rs := &reqs{rows: make([]req, 0, len(list))}
	for _, r := range list {
		rs.add(r)
	}
	return rs
}

func (r *req) firstNS() *int64 {
	if r.flags&flagFirst == 0 {
		return nil
	}
	return &r.first
}
