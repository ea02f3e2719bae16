package query

import (
	"fmt"
	"strings"
	"sync"

	"github.com/dsight/dsight/internal/model"
)

// Engine answers questions about one dataset. It is safe for concurrent
// readers once New returns; nothing mutates it afterwards.
type Engine struct {
	d        *model.Dataset
	sessions []model.Session

	requestByID   map[string]int
	sessionByID   map[string]int
	sessionOf     []int // request index → session index
	searchOnce    sync.Once
	searchText    []string // request index → lower-cased searchable identities, built on first search
	sourceByID    map[int]int
	durationS     float64
	maxRequestDur int64 // longest request, bounds the overlap scan
}

// New indexes d. Requests must be sorted by (StartNS, ID) with unique IDs,
// which the importer guarantees and the shard decoder preserves.
func New(d *model.Dataset) (*Engine, error) {
	if d.Meta.DurationNS <= 0 {
		return nil, fmt.Errorf("dataset has a non-positive duration (%d ns)", d.Meta.DurationNS)
	}
	e := &Engine{
		d:           d,
		sessions:    model.GroupSessions(d.Requests),
		requestByID: make(map[string]int, len(d.Requests)),
		sourceByID:  make(map[int]int, len(d.Sources)),
		durationS:   seconds(d.Meta.DurationNS),
	}
	for i := range d.Requests {
		r := &d.Requests[i]
		if _, dup := e.requestByID[r.ID]; dup {
			return nil, fmt.Errorf("duplicate request id %q", r.ID)
		}
		if i > 0 && less(r, &d.Requests[i-1]) {
			return nil, fmt.Errorf("requests are not sorted by start at %q", r.ID)
		}
		e.requestByID[r.ID] = i
		e.maxRequestDur = max(e.maxRequestDur, r.EndNS-r.StartNS)
	}
	e.sessionByID = make(map[string]int, len(e.sessions))
	e.sessionOf = make([]int, len(d.Requests))
	for si, s := range e.sessions {
		e.sessionByID[s.ID] = si
		for _, ri := range s.Requests {
			e.sessionOf[ri] = si
		}
	}
	for i, s := range d.Sources {
		e.sourceByID[s.ID] = i
	}
	return e, nil
}

// Dataset returns the dataset the engine answers for.
func (e *Engine) Dataset() *model.Dataset { return e.d }

func less(a, b *model.Request) bool {
	if a.StartNS != b.StartNS {
		return a.StartNS < b.StartNS
	}
	return a.ID < b.ID
}

// searchTexts builds the search haystacks on first use: most sessions
// never search, and building them costs a string per request at load.
func (e *Engine) searchTexts() []string {
	e.searchOnce.Do(func() {
		e.searchText = make([]string, len(e.d.Requests))
		for i := range e.d.Requests {
			e.searchText[i] = searchable(&e.d.Requests[i])
		}
	})
	return e.searchText
}

// searchable joins every identity a user may type into the search box:
// id, session, agent, conversation and source trace.
func searchable(r *model.Request) string {
	var b strings.Builder
	b.WriteString(r.ID)
	b.WriteByte('\n')
	b.WriteString(r.Session)
	b.WriteByte('\n')
	b.WriteString(r.Agent)
	for _, p := range []*string{r.Conversation, r.SourceTrace} {
		if p != nil {
			b.WriteByte('\n')
			b.WriteString(*p)
		}
	}
	return strings.ToLower(b.String())
}

// seconds converts relative nanoseconds to seconds. float64 division yields
// the nearest representable value, which is what rounding to 9 decimals means.
func seconds(ns int64) float64 { return float64(ns) / 1e9 }
