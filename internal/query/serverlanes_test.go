package query

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dsight/dsight/internal/model"
)

// lanesEngine holds n unowned spans of random overlapping lengths over the
// fixture's 12 s.
func lanesEngine(t testing.TB, n int) *Engine {
	t.Helper()
	d := serverFixture()
	rng := rand.New(rand.NewPCG(1, 2))
	d.ServerSpans = nil
	for k := range n {
		from := rng.Int64N(11 * s)
		to := from + rng.Int64N(s/2) + 1
		d.ServerSpans = append(d.ServerSpans, model.JoinedSpan{Span: &model.Span{
			TraceID: "t", SpanID: fmt.Sprintf("u%d", k), Name: "kv_router.compute", StartNS: d.Meta.OriginNS + from, EndNS: d.Meta.OriginNS + to,
			Ref: model.SpanRef{Path: "otel/c/traces.jsonl", Line: int64(k + 1)},
		}})
	}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func lanes(t *testing.T, e *Engine, args string) ServerLanes {
	t.Helper()
	var out ServerLanes
	if err := json.Unmarshal(mustResult(t, e, `{"op":"server_lanes","args":`+args+`}`), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Overlapping spans are packed into sub-lanes that never hold two
// overlapping spans, and every span in the window is drawn exactly once.
func TestServerLanesPackEverySpan(t *testing.T) {
	e := lanesEngine(t, 1500) // more than the 1,000 the lanes once drew
	for _, args := range []string{`{}`, `{"from":2,"to":3}`} {
		got := lanes(t, e, args)
		if got.Drawn != "spans" || len(got.Lanes) != 1 {
			t.Fatalf("%s: drawn %q in %d lanes", args, got.Drawn, len(got.Lanes))
		}
		l := got.Lanes[0]
		seen := map[string]bool{}
		for r, row := range l.Rows {
			for i, sp := range row {
				if seen[sp.ID] {
					t.Fatalf("%s: span %s drawn twice", args, sp.ID)
				}
				seen[sp.ID] = true
				if i > 0 && row[i-1].End > sp.Start {
					t.Fatalf("%s: sub-lane %d: %s [%v, %v] overlaps %s [%v, %v]", args, r, row[i-1].ID, row[i-1].Start, row[i-1].End, sp.ID, sp.Start, sp.End)
				}
			}
		}
		if len(seen) != got.Total || l.Total != got.Total || got.Total == 0 {
			t.Errorf("%s: %d spans drawn, %d in range (lane %d)", args, len(seen), got.Total, l.Total)
		}
		if len(l.Rows) < 2 {
			t.Errorf("%s: %d sub-lanes for overlapping spans", args, len(l.Rows))
		}
	}
	if got := lanes(t, e, `{}`); got.Total != 1500 {
		t.Errorf("whole run: %d spans, want 1500", got.Total)
	}
	// Greedy first fit: a span takes the first sub-lane free at its start,
	// so the sub-lane count is the peak overlap.
	var peak int
	ss := &e.c.ServerSpans
	for k := range ss.Start {
		n := 0
		for j := range ss.Start {
			if ss.Start[j] <= ss.Start[k] && ss.End[j] > ss.Start[k] {
				n++
			}
		}
		peak = max(peak, n)
	}
	if got := lanes(t, e, `{}`); len(got.Lanes[0].Rows) != peak {
		t.Errorf("%d sub-lanes, peak overlap %d", len(got.Lanes[0].Rows), peak)
	}
}

// A window holding more spans than can be drawn answers each lane's
// density, labelled, with the exact count; zooming in draws every span.
func TestServerLanesDensity(t *testing.T) {
	e := lanesEngine(t, MaxServerLaneSpans+500)
	got := lanes(t, e, `{"bins":100}`)
	if got.Drawn != "density" || got.Total != MaxServerLaneSpans+500 || len(got.Lanes) != 1 {
		t.Fatalf("drawn %q, total %d, %d lanes", got.Drawn, got.Total, len(got.Lanes))
	}
	l := got.Lanes[0]
	if l.Rows != nil || l.Density == nil || len(l.Density.Counts) != 100 || l.Total != got.Total {
		t.Fatalf("lane %+v", l)
	}
	// Every span counts in the bins it covers: at least once each.
	sum := 0
	for _, n := range l.Density.Counts {
		sum += n
	}
	if sum < got.Total || l.Density.Max == 0 {
		t.Errorf("density sums to %d for %d spans, max %d", sum, got.Total, l.Density.Max)
	}
	if z := lanes(t, e, `{"from":5,"to":5.5}`); z.Drawn != "spans" || z.Total == 0 {
		t.Errorf("zoomed: drawn %q total %d", z.Drawn, z.Total)
	}
}

// Given the lanes' width, a span shorter than two pixels is packed as two
// pixels wide, as the page draws it, so drawn bars never overlap either.
func TestServerLanesPackDrawnWidths(t *testing.T) {
	e := lanesEngine(t, 1500)
	got := lanes(t, e, `{"pixels":100}`)
	minS := 12.0 * MinServerSpanPixels / 100
	for r, row := range got.Lanes[0].Rows {
		for i := 1; i < len(row); i++ {
			if end := max(row[i-1].End, row[i-1].Start+minS); end > row[i].Start+1e-9 {
				t.Fatalf("sub-lane %d: %s drawn to %v overlaps %s at %v", r, row[i-1].ID, end, row[i].ID, row[i].Start)
			}
		}
	}
	if plain := lanes(t, e, `{}`); len(got.Lanes[0].Rows) <= len(plain.Lanes[0].Rows) {
		t.Errorf("%d sub-lanes at 100 px, %d unscaled: wide bars need more", len(got.Lanes[0].Rows), len(plain.Lanes[0].Rows))
	}
}

// BenchmarkServerLanes packs a window of 4,000 spans (the most drawn as
// bars) and answers the whole run of 12,000 as densities.
func BenchmarkServerLanes(b *testing.B) {
	e := lanesEngine(b, 12000)
	for _, tc := range []struct{ name, args string }{{"pack", `{"from":2,"to":6,"pixels":1200}`}, {"density", `{"bins":200}`}} {
		b.Run(tc.name, func(b *testing.B) {
			req := []byte(`{"op":"server_lanes","args":` + tc.args + `}`)
			b.ReportAllocs()
			for b.Loop() {
				e.Handle(req)
			}
		})
	}
}
