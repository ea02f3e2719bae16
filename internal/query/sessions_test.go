package query

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// sessionsDataset is a run of n requests over sessions of very different
// lengths: many short ones, a few that span most of the run, some
// requests without TTFT, so both ways of grouping meet every case.
func sessionsDataset(n int, seed uint64) *model.Dataset {
	rnd := rand.New(rand.NewPCG(seed, 1))
	d := fixture()
	d.Requests = nil
	for i := range n {
		session := fmt.Sprintf("s%03d", rnd.IntN(n/8))
		if i%50 == 0 {
			session = fmt.Sprintf("long%d", rnd.IntN(3))
		}
		start := int64(rnd.IntN(1000)) * s / 100
		end := start + int64(rnd.IntN(200)+1)*s/100
		r := model.Request{ID: fmt.Sprintf("r%05d", i), Session: session, Agent: session, StartNS: start, EndNS: end, Status: "completed", Evidence: model.Ref{Line: int64(i + 1)}}
		if rnd.IntN(5) > 0 {
			r.TTFTms = ptr(float64(rnd.IntN(3000)))
			r.FirstNS = ptr(start + int64(*r.TTFTms)*1e6)
		}
		d.Requests = append(d.Requests, r)
	}
	slices.SortFunc(d.Requests, func(a, b model.Request) int {
		if a.StartNS != b.StartNS {
			return int(a.StartNS - b.StartNS)
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	d.Meta.DurationNS = 13 * s
	d.Audit["client_requests"] = int64(n)
	return d
}

// TestGroupBySessionMatchesRequests compares the session walk with the
// request walk it replaces, over random windows and filters.
func TestGroupBySessionMatchesRequests(t *testing.T) {
	e, err := FromDataset(sessionsDataset(3000, 7))
	if err != nil {
		t.Fatal(err)
	}
	if !e.spansByStart {
		t.Fatal("the dataset's sessions are not stored by start: the session walk would not be exercised")
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	filters := []Args{{}, {MinTTFTms: ptr(1500.0)}, {Search: "r01"}, {Session: ptr("long1")}}
	wholeSessions := 0
	for k := range 400 {
		a := filters[k%len(filters)]
		from := rnd.Float64() * 13
		to := min(from+rnd.Float64()*13*rnd.Float64()+0.001, 13)
		a.From, a.To = &from, &to
		win, err := e.window(a)
		if err != nil {
			t.Fatal(err)
		}
		match, all, err := e.matcherAll(a, win)
		if err != nil {
			t.Fatal(err)
		}
		got, want := e.groupBySession(win, match, all), e.groupByRequest(win, match)
		slices.SortFunc(want, func(x, y sessionMatch) int { return x.index - y.index })
		if len(got) != len(want) {
			t.Fatalf("window %g..%g %+v: %d sessions, want %d", from, to, a, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.index != w.index || g.count != w.count || !reflect.DeepEqual(g.maxTTFT, w.maxTTFT) {
				t.Fatalf("window %g..%g %+v: session %d counts %d (max TTFT %v), want %d (%v)", from, to, a, w.index, g.count, derefF(g.maxTTFT), w.count, derefF(w.maxTTFT))
			}
			if sp := e.sessionSpans[g.index]; all && sp.start >= win.fromNS && sp.end <= win.toNS {
				wholeSessions++
			}
		}
	}
	if wholeSessions == 0 {
		t.Fatal("no window held a whole session")
	}
}
