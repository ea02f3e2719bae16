package query

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/shard"
)

// metricPayload builds a series summary the way the importer encodes it.
func metricPayload(t testing.TB, temporal pyramid.Temporal, times []int64, values []float64) []byte {
	t.Helper()
	b, err := pyramid.NewBuilder(pyramid.Options{Temporal: temporal})
	if err != nil {
		t.Fatal(err)
	}
	for k := range times {
		if err := b.Add(times[k], values[k], false); err != nil {
			t.Fatal(err)
		}
	}
	l, err := b.Finish().Tables()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := shard.Encode(&shard.Shard{Kind: pyramid.ShardKind, Tables: append([]shard.Table{l.Header, l.Index}, l.Chunks...)})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func metricEngine(t testing.TB) (*Engine, map[string][]byte) {
	t.Helper()
	d := fixture()
	dur := d.Meta.DurationNS
	// A gauge with 1,500 rows in the window and a setting held from before it.
	var gt []int64
	var gv []float64
	for k := range 1500 {
		gt, gv = append(gt, int64(k)*(dur/1500)), append(gv, float64(k%7))
	}
	payloads := map[string][]byte{
		"gauge":   metricPayload(t, pyramid.Sample, gt, gv),
		"setting": metricPayload(t, pyramid.Setting, []int64{-5e9, dur / 2}, []float64{8, 16}),
	}
	w := "decode-0"
	d.MetricFamilies = []model.MetricFamily{{Name: "g", SeriesCount: 1, Samples: 1500}, {Name: "s", SeriesCount: 1, Samples: 1}}
	d.Metrics = []model.MetricSeries{
		{ID: 0, Name: "g", Worker: &w, Temporal: "sample", Samples: 1500, Shard: &model.MetricShard{ID: "gauge"}},
		{ID: 1, Name: "s", Worker: &w, Temporal: "setting", Samples: 1, Shard: &model.MetricShard{ID: "setting"}},
	}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	return e, payloads
}

func askMetric(t testing.TB, e *Engine, op string, args Args) (json.RawMessage, string) {
	t.Helper()
	body, _ := json.Marshal(Request{Op: op, Args: args})
	var env struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(e.Handle(body), &env); err != nil {
		t.Fatal(err)
	}
	return env.Result, env.Error
}

func TestMetricsNeedTheirShards(t *testing.T) {
	e, payloads := metricEngine(t)
	name := "g"
	if _, msg := askMetric(t, e, "metrics", Args{Name: &name}); !strings.Contains(msg, "needs shards not loaded: gauge") {
		t.Fatalf("error %q does not name the missing shard", msg)
	}
	plan, _ := askMetric(t, e, "metric_plan", Args{})
	if !strings.Contains(string(plan), `"id":"gauge"`) || !strings.Contains(string(plan), `"id":"setting"`) {
		t.Fatalf("plan %s", plan)
	}
	if err := e.LoadShard("unknown", payloads["gauge"]); err == nil {
		t.Fatal("an unknown shard id was accepted")
	}
	if err := e.LoadShard("gauge", payloads["gauge"][:len(payloads["gauge"])-3]); err == nil {
		t.Fatal("a truncated shard was accepted")
	}
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	plan, _ = askMetric(t, e, "metric_plan", Args{})
	if string(plan) != `{"shards":[]}` {
		t.Fatalf("plan after loading: %s", plan)
	}
	res, msg := askMetric(t, e, "metrics", Args{Points: true})
	if msg != "" {
		t.Fatal(msg)
	}
	var ans struct {
		Items []struct {
			Samples         int64       `json:"samples"`
			Min, Max, Last  *float64    `json:"-"`
			Points          [][2]any    `json:"points"`
			PointsTotal     int64       `json:"points_total"`
			PointsTruncated bool        `json:"points_truncated"`
			CarriedSetting  *[2]float64 `json:"carried_setting"`
		} `json:"items"`
	}
	if err := json.Unmarshal(res, &ans); err != nil || len(ans.Items) != 2 {
		t.Fatalf("%v %s", err, res)
	}
	g, s := ans.Items[0], ans.Items[1]
	if g.Samples != 1500 || g.PointsTotal != 1500 || !g.PointsTruncated || len(g.Points) != MaxMetricPoints {
		t.Fatalf("gauge: samples %d, %d of %d points, truncated %v", g.Samples, len(g.Points), g.PointsTotal, g.PointsTruncated)
	}
	if s.Samples != 1 || s.CarriedSetting == nil || s.CarriedSetting[0] != -5 || s.CarriedSetting[1] != 8 {
		t.Fatalf("setting: samples %d, carried %v", s.Samples, s.CarriedSetting)
	}
}

// FuzzLoadShard: a damaged metric payload is refused or answers; it never
// panics, and a truncated one is never accepted.
func FuzzLoadShard(f *testing.F) {
	e, payloads := metricEngine(f)
	for _, raw := range payloads {
		f.Add(raw)
		f.Add(raw[:len(raw)/2])
	}
	good := payloads["gauge"]
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := e.LoadShard("gauge", raw)
		if err == nil && len(raw) < len(good) && string(raw) == string(good[:len(raw)]) {
			t.Fatal("a truncated payload was accepted")
		}
		if err == nil {
			if _, msg := askMetric(t, e, "metrics", Args{}); msg != "" && !strings.Contains(msg, "needs shards") {
				t.Logf("loaded payload answers with an error: %s", msg)
			}
		}
	})
}
