package pyramid

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/dsight/dsight/internal/logmetric"
)

const sec = int64(1e9)

// TestCapacitySpec checks the capacity expectations of the reference's
// Metrics chart (reference-behaviour §9), at every zoom the pyramid serves:
// the observed series is padded with far-away samples so its levels are
// really used, and each case is answered from summaries and by the scanning
// fallback.
func TestCapacitySpec(t *testing.T) {
	type pt struct {
		sec  float64
		v    float64
		null bool
	}
	type want struct {
		samples     int64
		peak        float64
		limit       string
		unavailable int64
		usage       string
	}
	limit8 := []pt{{sec: -1, v: 8}}
	active := []pt{{sec: 2.23, v: 4}, {sec: 5.23, v: 6}}
	tests := []struct {
		name     string
		limit    []pt // nil: no limit series in scope
		observed []pt
		from, to float64
		want     want
	}{
		{"constant limit 8, peaks 4 and 6", limit8, active, 0, 10, want{2, 6, "8", 0, "75%"}},
		{"zoom to [0, 3]", limit8, active, 0, 3, want{1, 4, "8", 0, "50%"}},
		{"changed 8 to 16 with 12", []pt{{sec: -1, v: 8}, {sec: 3, v: 16}}, []pt{{sec: 2.23, v: 4}, {sec: 5.23, v: 12}}, 0, 10,
			want{2, 12, "8–16 (changed)", 0, "75%"}},
		{"missing or other-rank limit", nil, active, 0, 10, want{2, 6, "unavailable", 2, ""}},
		{"late config", []pt{{sec: 3, v: 8}}, active, 0, 10, want{2, 6, "8", 1, "75%"}},
		{"null-invalidated config", []pt{{sec: -1, v: 8}, {sec: 3, null: true}}, active, 0, 10, want{2, 6, "8", 1, "50%"}},
		{"conflicting config at one timestamp", []pt{{sec: -1, v: 8}, {sec: -1, v: 16}}, active, 0, 10, want{2, 6, "unavailable", 2, ""}},
		{"zero limit is shown, gives no usage", []pt{{sec: -1, v: 0}}, active, 0, 10, want{2, 6, "0", 2, ""}},
		{"setting at the range start supersedes the held one", []pt{{sec: -1, v: 8}, {sec: 2, v: 16}}, []pt{{sec: 3, v: 4}}, 2, 9,
			want{1, 4, "16", 0, "25%"}},
	}
	ns := func(s float64) int64 { return int64(s * 1e9) }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var lim *Pyramid
			if tc.limit != nil {
				var in []input
				for _, p := range tc.limit {
					in = append(in, input{t: ns(p.sec), v: p.v, null: p.null})
				}
				lim = build(t, in, Options{Temporal: Setting})
			}
			// Padding far outside the range: a dense stretch before and after.
			var in []input
			for i := 0; i < 5000; i++ {
				in = append(in, input{t: -100*sec + int64(i)*1000, v: 1})
			}
			for _, p := range tc.observed {
				in = append(in, input{t: ns(p.sec), v: p.v, null: p.null})
			}
			for i := 0; i < 5000; i++ {
				in = append(in, input{t: 100*sec + int64(i)*1000, v: 1})
			}
			for _, summarized := range []bool{true, false} {
				opts := Options{MinBucketRows: 4}
				if summarized {
					opts.Limit = lim
				}
				obs := build(t, in, opts)
				c, err := SummarizeCapacity(obs, lim, ns(tc.from), ns(tc.to))
				if err != nil {
					t.Fatal(err)
				}
				if c.Scanned == summarized && lim != nil {
					t.Errorf("summarized=%v but Scanned=%v", summarized, c.Scanned)
				}
				got := want{c.Samples, c.Peak.V, limitText(c), c.Unavailable, ""}
				if c.HasUsage {
					got.usage = logmetric.FormatPercent(c.HighestUsage.V)
				}
				if got != tc.want {
					t.Errorf("summarized=%v:\n got %+v\nwant %+v", summarized, got, tc.want)
				}
			}
		})
	}
}

func limitText(c Capacity) string {
	lc := logmetric.Capacity{Limit: logmetric.LimitKind(c.Limit), LimitMin: c.LimitMin, LimitMax: c.LimitMax}
	return lc.LimitText()
}

// TestCapacityMatchesLogmetric compares random series with the reference
// implementation of the legend (logmetric.SummarizeCapacity) over random
// ranges, answered from summaries and by scanning.
func TestCapacityMatchesLogmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for iter := 0; iter < 200; iter++ {
		obsTemporal := []Temporal{Sample, Event}[rng.IntN(2)]
		limTemporal := []Temporal{Sample, Setting}[rng.IntN(2)]
		obsIn := genSeries(rng, rng.IntN(2000))
		var limIn []input
		if len(obsIn) > 0 && rng.IntN(10) > 0 {
			// Limits share some of the observed timestamps (a pool logged on
			// the same line) and add their own.
			for _, p := range obsIn {
				if rng.IntN(20) == 0 {
					limIn = append(limIn, input{t: p.t, v: float64(rng.IntN(5) * 8), null: rng.IntN(15) == 0})
				}
			}
		}
		lim := build(t, limIn, Options{Temporal: limTemporal})
		summarized := build(t, obsIn, Options{Temporal: obsTemporal, MinBucketRows: 1 + rng.IntN(10), ChunkRows: 8 + rng.IntN(50), Limit: lim})
		scanned := build(t, obsIn, Options{Temporal: obsTemporal})
		lmObs := lmSeries(obsIn, obsTemporal)
		lmLim := lmSeries(limIn, limTemporal)
		rows := bruteRows(obsIn, obsTemporal)
		for q := 0; q < 30; q++ {
			from, to := randomRange(rng, rows)
			want := logmetric.SummarizeCapacity(lmObs, lmLim, from, to)
			for _, obs := range []*Pyramid{summarized, scanned} {
				c, err := SummarizeCapacity(obs, lim, from, to)
				if err != nil {
					t.Fatal(err)
				}
				got := logmetric.Capacity{
					Samples: int(c.Samples), Peak: c.Peak.V, Limit: logmetric.LimitKind(c.Limit),
					LimitMin: c.LimitMin, LimitMax: c.LimitMax, Unavailable: int(c.Unavailable),
					HighestUsage: c.HighestUsage.V, HasUsage: c.HasUsage,
				}
				if want.Samples == 0 {
					got.Peak = 0
				}
				if !want.HasUsage {
					got.HighestUsage = 0
				}
				if got != want {
					t.Fatalf("iter %d query %d (scanned=%v, %v against %v) [%d, %d]:\n got %+v\nwant %+v",
						iter, q, c.Scanned, obsTemporal, limTemporal, from, to, got, want)
				}
			}
		}
	}
}

func lmSeries(in []input, temporal Temporal) *logmetric.Series {
	s := &logmetric.Series{Definition: logmetric.Definition{Temporal: logmetric.TemporalSample + logmetric.Temporal(temporal)}}
	for i, p := range in {
		s.Points = append(s.Points, logmetric.Point{TimeNS: p.t, Value: p.v, Null: p.null, Line: int64(i + 1)})
	}
	return s
}

func TestCapacityIncomplete(t *testing.T) {
	lim := build(t, []input{{t: 0, v: 8}}, Options{Temporal: Setting})
	rng := rand.New(rand.NewPCG(15, 16))
	in := genSeries(rng, 3000)
	obs := build(t, in, Options{MinBucketRows: 4, ChunkRows: 64, Limit: lim})
	olay, _ := obs.Tables()
	llay, _ := lim.Tables()
	o, _ := Open(&olay.Header, &olay.Index)
	l, _ := Open(&llay.Header, &llay.Index)
	from, to := in[100].t, in[2000].t
	_, err := SummarizeCapacity(o, l, from, to)
	var inc *IncompleteError
	if !errors.As(err, &inc) || len(inc.Chunks) == 0 || len(inc.Reference) == 0 {
		t.Fatalf("unloaded pyramids: %v", err)
	}
	oids, lids := PlanCapacity(o, l, from, to)
	for _, id := range oids {
		if err := o.Load(id, &olay.Chunks[id]); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range lids {
		if err := l.Load(id, &llay.Chunks[id]); err != nil {
			t.Fatal(err)
		}
	}
	for round := 0; ; round++ {
		got, err := SummarizeCapacity(o, l, from, to)
		if errors.As(err, &inc) && round < 5 {
			for _, id := range inc.Chunks {
				o.Load(id, &olay.Chunks[id])
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		want, _ := SummarizeCapacity(obs, lim, from, to)
		got.Read, want.Read = ReadCost{}, ReadCost{}
		if got != want {
			t.Fatalf("partial: %+v, want %+v", got, want)
		}
		if round > 2 {
			t.Errorf("%d rounds", round)
		}
		break
	}
}
