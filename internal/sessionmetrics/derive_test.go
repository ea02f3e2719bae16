package sessionmetrics

import (
	"math"
	"reflect"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/shard"
)

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }
func str(v string) *string   { return &v }
func sec(s float64) int64    { return int64(math.Round(s * 1e9)) }
func secp(s float64) *int64  { return i64(sec(s)) }
func null(t float64) point   { return point{T: sec(t), Null: true} }
func at(t, v float64) point  { return point{T: sec(t), V: v} }
func pts(p ...point) []point { return p }
func phase(p string) *string { return str(p) }
func ms(v float64) *float64  { return f64(v) }
func tok(v int64) *int64     { return i64(v) }

// The hand-computed run (4 s, 1 s intervals):
//
//	A  0 ──first 0.5 ─────────── 2.5   20 out, 100 in, TTFT 500 ms  spans two boundaries
//	B        1.0 ── 1.5                 5 out,  50 in, TTFT unknown
//	C                        3.2        4 out,  10 in, TTFT 0, zero length
//	E  0.2 ── 0.7                       error
//	W  0 ─────────────────────── 4.0   warmup: excluded everywhere
func handRun() *model.Dataset {
	return &model.Dataset{Meta: model.Meta{DurationNS: sec(4)}, Requests: []model.Request{
		{ID: "A", StartNS: 0, FirstNS: secp(0.5), EndNS: sec(2.5), TTFTms: ms(500), OutputTokens: tok(20), InputTokens: tok(100), Status: model.StatusCompleted, Phase: phase("profiling")},
		{ID: "W", StartNS: 0, FirstNS: secp(0.1), EndNS: sec(4), TTFTms: ms(100), OutputTokens: tok(999), InputTokens: tok(999), Status: model.StatusCompleted, Phase: phase("Warmup")},
		{ID: "E", StartNS: sec(0.2), EndNS: sec(0.7), Status: model.StatusError, Phase: phase("profiling")},
		{ID: "B", StartNS: sec(1), EndNS: sec(1.5), OutputTokens: tok(5), InputTokens: tok(50), Status: model.StatusCompleted, Phase: phase("profiling")},
		{ID: "C", StartNS: sec(3.2), FirstNS: secp(3.2), EndNS: sec(3.2), TTFTms: ms(0), OutputTokens: tok(4), InputTokens: tok(10), Status: model.StatusCompleted, Phase: phase("profiling")},
	}}
}

func kept(d *model.Dataset) []*model.Request {
	var out []*model.Request
	for i := range d.Requests {
		if !Excluded(&d.Requests[i]) {
			out = append(out, &d.Requests[i])
		}
	}
	return out
}

func find(t *testing.T, all []series, family, label string) []point {
	t.Helper()
	for _, s := range all {
		if s.family == family && s.label == label {
			var rows []point
			s.each(func(p point) { rows = append(rows, p) })
			return rows
		}
	}
	t.Fatalf("no series %s / %s", family, label)
	return nil
}

func near(a, b []point) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].T != b[k].T || a[k].Null != b[k].Null || !a[k].Null && math.Abs(a[k].V-b[k].V) > 1e-9 {
			return false
		}
	}
	return true
}

func TestHandComputedRun(t *testing.T) {
	d := handRun()
	all := derive(kept(d), d.Meta.DurationNS)
	for _, c := range []struct {
		family, label string
		want          []point
	}{
		// Overlapping A, B and E; the zero-length C never counts; W is warmup.
		{famInFlight, "all requests", pts(at(0, 1), at(0.2, 2), at(0.7, 1), at(1, 2), at(1.5, 1), at(2.5, 0))},
		// A's 20 tokens over its active 2 s (first token → end) = 10 tok/s: 5 in
		// [0,1), 10 in [1,2), 5 in [2,3); B's 5 over start → end in [1,2); C's 4
		// all in the interval of its instant.
		{famGeneration, "all requests (estimate)", pts(at(0, 5), at(1, 15), at(2, 5), at(3, 4))},
		{famGeneration, "of which spread from start (first token unknown)", pts(at(0, 0), at(1, 5), at(2, 0), at(3, 0))},
		{famPrefill, "all requests (estimate)", pts(at(0, 100), at(1, 50), at(2, 0), at(3, 10))},
		// Latency by end: nothing completed in [0,1) (E errored): null, not 0.
		{famLatency, "p50 · 1 s intervals", pts(null(0), at(1, 0.5), at(2, 2.5), at(3, 0))},
		{famLatency, "p99 · 1 s intervals", pts(null(0), at(1, 0.5), at(2, 2.5), at(3, 0))},
		// TTFT by first token: B's unknown TTFT counts nowhere; C's recorded 0 is a value.
		{famTTFT, "p50 · 1 s intervals", pts(at(0, 0.5), null(1), null(2), at(3, 0))},
		{famOutcomes, "errors", pts(at(0, 1), at(1, 0), at(2, 0), at(3, 0))},
		{famOutcomes, "cancellations", pts(at(0, 0), at(1, 0), at(2, 0), at(3, 0))},
		{famMaxSize, "prompt tokens", pts(null(0), at(1, 50), at(2, 100), at(3, 10))},
		{famMaxSize, "generation tokens", pts(null(0), at(1, 5), at(2, 20), at(3, 4))},
		{famAvgSize, "prompt tokens", pts(at(2, 50), at(3, 75), at(4, 160.0/3))},
		{famCompleted, "completed requests", pts(at(0, 0), at(2, 1), at(3, 2), at(4, 3))},
		{famTotalTokens, "generated tokens", pts(at(0, 0), at(2, 5), at(3, 25), at(4, 29))},
	} {
		if got := find(t, all, c.family, c.label); !near(got, c.want) {
			t.Errorf("%s / %s:\n got %v\nwant %v", c.family, c.label, got, c.want)
		}
	}
	// A 4 s run has no 10 s or 60 s percentile series.
	for _, s := range all {
		for _, l := range s.labels {
			if l.Key == "interval" && l.Value != "1 s" {
				t.Errorf("series %s %s at a coarse interval in a 4 s run", s.family, s.label)
			}
		}
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{50: 5, 90: 9, 99: 10, 100: 10, 1: 1} {
		if got, ok := Percentile(v, p); !ok || got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if _, ok := Percentile(nil, 50); ok {
		t.Error("an empty set has a percentile")
	}
}

// Coarser intervals are computed from their own requests, never from the
// finer intervals' percentiles.
func TestCoarseIntervalsAreNotAveraged(t *testing.T) {
	d := &model.Dataset{Meta: model.Meta{DurationNS: sec(30)}}
	for k, c := range []struct{ start, end float64 }{{0, 0.9}, {0, 0.95}, {0, 0.99}, {0.5, 0.6}, {0, 2}} {
		d.Requests = append(d.Requests, model.Request{ID: string(rune('a' + k)), StartNS: sec(c.start), EndNS: sec(c.end), Status: model.StatusCompleted})
	}
	all := derive(kept(d), d.Meta.DurationNS)
	// [0,1): 0.1 0.9 0.95 0.99 → p50 at rank 2 = 0.9; [2,3): 2.
	if fine := find(t, all, famLatency, "p50 · 1 s intervals"); fine[0].V != 0.9 || fine[2].V != 2 || !fine[1].Null {
		t.Errorf("1 s p50s %v", fine[:3])
	}
	// [0,10): 0.1 0.9 0.95 0.99 2 → rank 3 = 0.95 (the mean of the 1 s p50s is 1.45).
	coarse := find(t, all, famLatency, "p50 · 10 s intervals")
	if len(coarse) != 3 || coarse[0].V != 0.95 || !coarse[1].Null || !coarse[2].Null {
		t.Errorf("10 s p50s %v", coarse)
	}
}

// Derive marks every family and series derived, under the Session
// component, and each summary holds exactly the computed rows.
func TestDeriveCatalog(t *testing.T) {
	fams, ms, err := Derive(handRun())
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != len(Definitions) {
		t.Fatalf("%d families, want %d", len(fams), len(Definitions))
	}
	total := 0
	for _, f := range fams {
		if !f.Derived || f.Component != Component || f.SourceKind != model.SourceDerived || f.Description == "" {
			t.Errorf("family %+v is not marked derived", f)
		}
		total += f.SeriesCount
	}
	if total != len(ms) {
		t.Fatalf("families count %d series, got %d", total, len(ms))
	}
	for i, m := range ms {
		if m.ID != i || !m.Derived || m.SourceKind != model.SourceDerived || m.Summary == nil {
			t.Fatalf("series %d: %+v", i, m)
		}
	}
	m := ms[0] // in flight, all requests
	raw, _ := m.Summary.Payload.Bytes()
	dec, err := shard.Decompress(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pyramid.DecodeShard(dec)
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Query(0, sec(4), 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 2, 1, 2, 1, 0}
	if !v.Exact || !reflect.DeepEqual(v.Values, want) || m.Samples != 6 || p.Temporal() != pyramid.Setting {
		t.Fatalf("in-flight summary: exact %v values %v samples %d", v.Exact, v.Values, m.Samples)
	}
	if f, s, _ := Derive(&model.Dataset{Meta: model.Meta{DurationNS: 1}, Requests: handRun().Requests[1:2]}); f != nil || s != nil {
		t.Fatal("a run of warmup requests only has session metrics")
	}
}
