package query

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
)

func askStats(t *testing.T, e *Engine, a Args) (StatsAnswer, string) {
	t.Helper()
	raw, msg := askMetric(t, e, "stats", a)
	var out StatsAnswer
	if msg == "" {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out, msg
}

func eq(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }

func TestStatsRequests(t *testing.T) {
	e := engine(t)
	// Whole run: latencies 8, 2 and 1 s (completed); one cancelled; TTFTs
	// 3, 0.1 and 0.5 s. Nearest rank: p50 is rank ⌈1.5⌉ = 2, p90 rank 3.
	st, msg := askStats(t, e, Args{})
	if msg != "" {
		t.Fatal(msg)
	}
	r := st.Requests
	if r.Count != 4 || r.Completed != 3 || r.Cancelled != 1 || r.Errors != 0 || r.TTFTUnknown != 0 {
		t.Fatalf("counts %+v", r)
	}
	l := r.Latency
	if l.Samples != 3 || !eq(l.Min, 1) || !eq(l.Max, 8) || !eq(l.Mean, 11.0/3) || !eq(l.P50, 2) || !eq(l.P90, 8) || !eq(l.P99, 8) {
		t.Errorf("latency %+v", l)
	}
	if tt := r.TTFT; tt.Samples != 3 || !eq(tt.P50, 0.5) || !eq(tt.P90, 3) || !eq(tt.Min, 0.1) {
		t.Errorf("ttft %+v", tt)
	}
	// No request recorded output tokens: the estimate is unknown, not zero.
	if r.GenerationTokensPerS != nil || r.PrefillTokensPerS != nil || r.OutputTokensPerS.Samples != 0 || r.OutputTokensPerS.P50 != nil {
		t.Errorf("token rates without tokens: %+v", r)
	}
	// Percentile rows: p90, p95 and p99 of latency are all 8 s → parent-turn only.
	if len(r.Slow.Latency) != 3 {
		t.Fatalf("slow rows %+v", r.Slow.Latency)
	}
	for _, row := range r.Slow.Latency {
		if row.Total != 1 || row.Threshold != 8 || len(row.Requests) != 1 || row.Requests[0].ID != "parent-turn" || !eq(row.Requests[0].TTFTs, 3) {
			t.Errorf("latency row %+v", row)
		}
	}
	if row := r.Slow.TTFT[0]; row.Percentile != 90 || row.Threshold != 3 || row.Requests[0].ID != "parent-turn" {
		t.Errorf("ttft row %+v", row)
	}
	// [5, 7] overlaps parent-turn and child-turn only.
	st, _ = askStats(t, e, Args{From: ptr(5.0), To: ptr(7.0)})
	if st.Requests.Count != 2 || !eq(st.Requests.Latency.P50, 2) || !eq(st.Requests.Latency.P99, 8) || st.Range != [2]float64{5, 7} {
		t.Errorf("[5,7]: %+v", st.Requests)
	}
	if _, msg := askStats(t, e, Args{From: ptr(7.0), To: ptr(5.0)}); msg == "" {
		t.Error("a reversed range answered")
	}
}

func TestStatsTokenEstimates(t *testing.T) {
	d := fixture()
	// parent-turn: 50 output tokens over first token (3 s) → end (8 s): 10
	// tok/s; 40 prompt tokens at its start (0).
	d.Requests[0].OutputTokens, d.Requests[0].InputTokens = ptr(int64(50)), ptr(int64(40))
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := askStats(t, e, Args{From: ptr(2.0), To: ptr(6.0)})
	// [2, 6] holds 3 s of the active span → 30 tokens over 4 s; the prompt
	// was credited before the range.
	if r := st.Requests; !eq(r.GenerationTokensPerS, 7.5) || r.PrefillTokensPerS != nil || !eq(r.OutputTokensPerS.P50, 10) || r.OutputTokensPerS.Samples != 1 {
		t.Errorf("estimates %+v", r)
	}
	st, _ = askStats(t, e, Args{})
	if r := st.Requests; !eq(r.GenerationTokensPerS, 50.0/12) || !eq(r.PrefillTokensPerS, 40.0/12) {
		t.Errorf("whole-run estimates %+v", r)
	}
}

func TestStatsSeries(t *testing.T) {
	e, payloads := metricEngine(t)
	_, msg := askStats(t, e, Args{})
	if msg == "" {
		t.Fatal("stats answered without the series' shards")
	}
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	st, msg := askStats(t, e, Args{})
	if msg != "" {
		t.Fatal(msg)
	}
	if st.SeriesTotal != 2 || len(st.Series) != 2 {
		t.Fatalf("series %+v", st.Series)
	}
	// The setting: 8 carried from −5 s until 6 s, then 16 until 12 s:
	// (6·8 + 6·16) / 12 = 12, one sample in the range.
	s := st.Series[1]
	if s.Samples != 1 || !eq(s.Min, 16) || !eq(s.Max, 16) || !eq(s.Mean, 12) || s.MeanKind != "time_weighted" || !s.Carried || !eq(s.MeanSeconds, 12) || !eq(s.P50, 16) {
		t.Errorf("setting %+v", s)
	}
	// The gauge: evenly spaced rows, so its time-weighted mean is the plain
	// mean of the values; percentiles by nearest rank over all 1,500.
	var vals []float64
	sum := 0.0
	for k := range 1500 {
		vals = append(vals, float64(k%7))
		sum += float64(k % 7)
	}
	slices.Sort(vals)
	g := st.Series[0]
	if g.Samples != 1500 || !eq(g.Mean, sum/1500) || !eq(g.P50, vals[749]) || !eq(g.P90, vals[1349]) || !eq(g.P99, vals[1484]) || !eq(g.Min, 0) || !eq(g.Max, 6) {
		t.Errorf("gauge %+v", g)
	}
	// Exact at any zoom: a narrow range reads only its own rows.
	st, _ = askStats(t, e, Args{From: ptr(0.0), To: ptr(0.02), Name: ptr("g")})
	if len(st.Series) != 1 || st.Series[0].Samples != 3 || !eq(st.Series[0].Max, 2) {
		t.Errorf("narrow gauge %+v", st.Series)
	}
	// Named ids keep only those.
	var env struct {
		Result StatsAnswer `json:"result"`
	}
	if err := json.Unmarshal(e.Handle([]byte(`{"op":"stats","args":{"ids":[1]}}`)), &env); err != nil || len(env.Result.Series) != 1 || env.Result.Series[0].ID != 1 {
		t.Errorf("series ids %+v %v", env.Result.Series, err)
	}
	// An empty list asks for the requests alone, with no shard.
	if err := json.Unmarshal(e.Handle([]byte(`{"op":"stats","args":{"ids":[]}}`)), &env); err != nil || len(env.Result.Series) != 0 || env.Result.Requests.Count != 4 {
		t.Errorf("no series %+v %v", env.Result, err)
	}
}

// Events have a plain mean: a value does not hold over time.
func TestStatsEventMean(t *testing.T) {
	d := fixture()
	d.MetricFamilies = []model.MetricFamily{{Name: "ev", SeriesCount: 1, Samples: 3}}
	d.Metrics = []model.MetricSeries{{ID: 0, Name: "ev", Temporal: "event", Samples: 3, Shard: &model.MetricShard{Shard: model.Shard{ID: "ev"}}}}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.LoadShard("ev", metricPayload(t, pyramid.Event, []int64{0, 1e9, 11e9}, []float64{1, 2, 9})); err != nil {
		t.Fatal(err)
	}
	st, _ := askStats(t, e, Args{})
	if s := st.Series[0]; s.MeanKind != "plain" || !eq(s.Mean, 4) || s.MeanSeconds != nil || !eq(s.P50, 2) {
		t.Errorf("event %+v", s)
	}
}

// Sessions sort by their longest request as well as by their longest TTFT.
func TestSessionsSortByLatency(t *testing.T) {
	e := engine(t)
	order := func(sort string) []string {
		res, msg := ask(t, e, `{"op":"sessions","args":{"sort":"`+sort+`"}}`)
		if msg != "" {
			t.Fatal(msg)
		}
		return ids(res)
	}
	// a: 8 s (TTFT 3 s); b: 1 s, cancelled, no TTFT; c: 1 s (TTFT 0.5 s).
	if got := order("latency"); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("by latency %v", got)
	}
	if got := order("ttft"); !slices.Equal(got, []string{"a", "c", "b"}) {
		t.Errorf("by ttft %v", got)
	}
	res, _ := ask(t, e, `{"op":"timeline","args":{"sort":"latency","limit":7}}`)
	if res == nil {
		t.Fatal("the timeline refuses sort latency")
	}
}
