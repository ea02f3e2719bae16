package query

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// sameAsMarshal fails t unless a writes what json.Marshal writes for its
// fallback, or declines exactly where json.Marshal fails.
func sameAsMarshal(t *testing.T, what string, a jsonAppender) {
	t.Helper()
	want, err := json.Marshal(a.fallback())
	got, ok := a.appendJSON([]byte("prefix"))
	if ok != (err == nil) {
		t.Fatalf("%s: wrote ok=%v, json.Marshal says %v", what, ok, err)
	}
	if ok && !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Fatalf("%s:\n got %s\nwant prefix%s", what, got, want)
	}
}

func randomFloat(r *rand.Rand) float64 {
	switch r.IntN(8) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return float64(r.IntN(100000))
	case 3:
		return r.Float64() * 1e-8
	case 4:
		return r.Float64() * 1e22
	case 5:
		return -r.Float64() * 7200
	}
	return r.Float64() * 7200
}

func randomString(r *rand.Rand) string { return hostileStrings[r.IntN(len(hostileStrings))] }

func maybe[T any](r *rand.Rand, v T) *T {
	if r.IntN(3) == 0 {
		return nil
	}
	return &v
}

func randomTimeline(r *rand.Rand) *TimelinePage {
	p := &TimelinePage{MatchingRequests: r.IntN(1000), FocusIndex: r.IntN(20) - 1}
	p.Total, p.Offset, p.Limit, p.Range = r.IntN(5000), r.IntN(100), r.IntN(100), [2]float64{randomFloat(r), randomFloat(r)}
	if r.IntN(6) > 0 {
		p.Items = []TimelineSession{}
	}
	for range r.IntN(5) {
		s := TimelineSession{ID: randomString(r), Start: randomFloat(r), End: randomFloat(r), Matching: r.IntN(50), MaxTTFTms: maybe(r, randomFloat(r)), AgentsN: r.IntN(9)}
		switch r.IntN(3) {
		case 1:
			s.Agents = []TimelineAgent{}
		case 2:
			for range 1 + r.IntN(3) {
				a := TimelineAgent{ID: randomString(r), Parent: maybe(r, randomString(r)), Depth: int64(r.IntN(4)), Label: randomString(r)}
				if r.IntN(5) > 0 {
					a.Bars = []Bar{}
				}
				for range r.IntN(4) {
					a.Bars = append(a.Bars, Bar{ID: randomString(r), Start: randomFloat(r), End: randomFloat(r), First: maybe(r, randomFloat(r)), TTFTms: maybe(r, randomFloat(r)),
						Status: randomString(r), Turn: maybe(r, int64(r.IntN(9))), InputTokens: maybe(r, r.Int64()), OutputTokens: maybe(r, -r.Int64()), Invalid: r.IntN(2) == 0, Lifecycle: r.IntN(2) == 0})
				}
				s.Agents = append(s.Agents, a)
			}
		}
		p.Items = append(p.Items, s)
	}
	return p
}

// The timeline and window overview answers write what json.Marshal
// writes, over random answers with every shape json.Marshal writes
// differently (nil and empty lists, null pointers, hostile strings,
// numbers in both of its formats), and decline a number it refuses.
func TestTimelineJSONIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	for i := range 2000 {
		p := randomTimeline(r)
		sameAsMarshal(t, "timeline", p)
		o := WindowOverview{Overview: Overview{Basis: randomString(r), Duration: randomFloat(r), BinSeconds: randomFloat(r), Max: r.IntN(99)}, From: randomFloat(r), To: randomFloat(r)}
		if i%7 > 0 {
			o.Counts = make([]int, r.IntN(300))
			for k := range o.Counts {
				o.Counts[k] = r.IntN(1000)
			}
		}
		sameAsMarshal(t, "window overview", o)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		sameAsMarshal(t, "window overview", WindowOverview{To: bad})
		p := &TimelinePage{}
		p.Items = []TimelineSession{{Agents: []TimelineAgent{{Bars: []Bar{{TTFTms: &bad}}}}}}
		sameAsMarshal(t, "timeline", p)
	}
	// The answers of a real engine are written as they were.
	e := engine(t)
	d := e.durationS
	res, err := e.Do(Request{Op: "timeline"})
	first, _ := res.(*TimelinePage)
	if err != nil || first == nil || len(first.Items) < 2 {
		t.Fatalf("the test run's timeline: %v, %#v", err, res)
	}
	expanded, _ := json.Marshal([]string{first.Items[0].ID, first.Items[1].ID})
	for _, q := range []string{
		`{"op":"timeline","args":{"limit":50}}`,
		`{"op":"timeline","args":{"from":0,"to":` + f64(d) + `,"limit":7,"expanded":` + string(expanded) + `}}`,
		`{"op":"window_overview","args":{"from":` + f64(d/5) + `,"to":` + f64(d/2) + `,"bins":200}}`,
		`{"op":"window_overview","args":{}}`,
	} {
		req, _ := decodeWire([]byte(q))
		op, _ := lookup(req.Op)
		a, err := op.decodeArgs(req.Args, "query")
		if err != nil {
			t.Fatal(err)
		}
		res, rerr := e.do(op, a)
		if rerr != nil {
			t.Fatal(rerr)
		}
		w, ok := res.(jsonAppender)
		if !ok {
			t.Fatalf("%s: the answer %T writes no JSON of its own", q, res)
		}
		sameAsMarshal(t, q, w)
		if p, ok := res.(*TimelinePage); ok && bytes.Contains([]byte(q), []byte("expanded")) && len(p.Items[0].Agents) == 0 {
			t.Fatalf("%s: the expanded session shows no agents", q)
		}
	}
}

func f64(v float64) string { b, _ := json.Marshal(v); return string(b) }

func BenchmarkTimelineJSON(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 9))
	var p *TimelinePage
	for p == nil || len(p.Items) < 4 {
		p = randomTimeline(r)
	}
	o := WindowOverview{Overview: Overview{Basis: "request starts", Duration: 7200, BinSeconds: 36, Counts: make([]int, 200)}, From: 0, To: 7200}
	for k := range o.Counts {
		o.Counts[k] = r.IntN(1000)
	}
	buf := make([]byte, 0, 1<<16)
	for _, c := range []struct {
		name string
		a    jsonAppender
	}{{"timeline", p}, {"window_overview", o}} {
		b.Run(c.name+"/written", func(b *testing.B) {
			for b.Loop() {
				buf, _ = c.a.appendJSON(buf[:0])
			}
		})
		b.Run(c.name+"/marshal", func(b *testing.B) {
			for b.Loop() {
				if _, err := json.Marshal(c.a.fallback()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
