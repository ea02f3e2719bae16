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
func sessionsDataset(n int, seed uint64, long bool) *model.Dataset {
	rnd := rand.New(rand.NewPCG(seed, 1))
	d := fixture()
	d.Requests = nil
	for i := range n {
		// Short sessions keep their requests within about a second.
		si := rnd.IntN(n / 8)
		session := fmt.Sprintf("s%03d", si)
		start := int64(si*1000/(n/8)+rnd.IntN(100)) * s / 100
		if long && i%50 == 0 {
			session = fmt.Sprintf("long%d", rnd.IntN(3))
			start = int64(rnd.IntN(1000)) * s / 100
		}
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

// TestGroupBySessionMatchesRequests compares the session walk and the
// paged walks (start order, and ranked by TTFT or count) with the request
// walk and sort they replace, over random windows,
// filters and pages, on runs with and without sessions as long as the run.
func TestGroupBySessionMatchesRequests(t *testing.T) {
	for _, long := range []bool{true, false} {
		t.Run(fmt.Sprintf("long=%v", long), func(t *testing.T) { checkSessionWalks(t, long) })
	}
}

func checkSessionWalks(t *testing.T, long bool) {
	e, err := FromDataset(sessionsDataset(3000, 7, long))
	if err != nil {
		t.Fatal(err)
	}
	if !e.spansByStart {
		t.Fatal("the dataset's sessions are not stored by start: the session walk would not be exercised")
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	filters := []Args{{}, {MinTTFTms: ptr(1500.0)}, {Search: "r01"}, {Session: ptr("long1")}, {Session: ptr("s007")}}
	wholeSessions, counted, middles := 0, 0, 0
	for k := range 600 {
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
		where := fmt.Sprintf("window %g..%g %+v", from, to, a)
		sameMatches(t, where, got, want)
		for _, g := range got {
			if sp := e.sessionSpans[g.index]; all && sp.start >= win.fromNS && sp.end <= win.toNS {
				wholeSessions++
			}
		}

		if all && win.toNS-e.maxSessionDur > win.fromNS {
			middles++ // pageByStart counts a run of sessions by prefix sums
		}
		offset, limit := rnd.IntN(len(want)+3), 1+rnd.IntN(12)
		focus := -1
		if len(want) > 0 && rnd.IntN(3) > 0 {
			focus = want[rnd.IntN(len(want))].index
		} else if rnd.IntN(2) == 0 {
			focus = rnd.IntN(len(e.sessionSpans))
		}
		pg := e.pageByStart(win, match, all, offset, limit, focus)
		wantFocus, wantRequests := -1, 0
		for k, m := range want {
			wantRequests += m.count
			if m.index == focus {
				wantFocus = k
			}
		}
		if pg.total != len(want) || pg.requests != wantRequests || pg.focus != wantFocus {
			t.Fatalf("%s: page totals %d sessions, %d requests, focus %d; want %d, %d, %d", where, pg.total, pg.requests, pg.focus, len(want), wantRequests, wantFocus)
		}
		sameMatches(t, fmt.Sprintf("%s page %d+%d", where, offset, limit), pg.items, want[min(offset, len(want)):min(offset+limit, len(want))])
		counted += len(pg.items)

		for _, order := range []string{"ttft", "count"} {
			less, err := sessionOrder(order)
			if err != nil {
				t.Fatal(err)
			}
			ranked := slices.Clone(want)
			slices.SortFunc(ranked, func(x, y sessionMatch) int {
				if less(x, y) {
					return -1
				}
				return 1
			})
			rankedFocus := -1
			for k, m := range ranked {
				if m.index == focus {
					rankedFocus = k
				}
			}
			pg := e.pageRanked(win, match, all, less, offset, limit, focus)
			if pg.total != len(want) || pg.requests != wantRequests || pg.focus != rankedFocus {
				t.Fatalf("%s by %s: page totals %d sessions, %d requests, focus %d; want %d, %d, %d", where, order, pg.total, pg.requests, pg.focus, len(want), wantRequests, rankedFocus)
			}
			sameMatches(t, fmt.Sprintf("%s by %s page %d+%d", where, order, offset, limit), pg.items, ranked[min(offset, len(ranked)):min(offset+limit, len(ranked))])
		}
	}
	if wholeSessions == 0 || counted == 0 || !long && middles == 0 {
		t.Fatalf("walks not exercised: %d whole sessions, %d page items, %d counted runs", wholeSessions, counted, middles)
	}
}

func sameMatches(t *testing.T, where string, got, want []sessionMatch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d sessions, want %d", where, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.index != w.index || g.count != w.count || !reflect.DeepEqual(g.maxTTFT, w.maxTTFT) {
			t.Fatalf("%s: session %d counts %d (max TTFT %v), want session %d, %d (%v)", where, g.index, g.count, derefF(g.maxTTFT), w.index, w.count, derefF(w.maxTTFT))
		}
	}
}
