package query

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
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
	raw, err := b.Finish().EncodeShard()
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
		{ID: 0, Name: "g", Worker: &w, Temporal: "sample", Samples: 1500, Shard: &model.MetricShard{Shard: model.Shard{ID: "gauge"}}},
		{ID: 1, Name: "s", Worker: &w, Temporal: "setting", Samples: 1, Shard: &model.MetricShard{Shard: model.Shard{ID: "setting"}}},
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
		defer fuzzlimit.Start(t)()
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

// A plot request returns, for a chart of the given width, either every row
// or per bucket its recorded min and max samples: every point is a real
// row, and the range's extremes are always among them.
func TestMetricPlotPoints(t *testing.T) {
	e, payloads := metricEngine(t)
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	name := "g"
	// The rows metricEngine recorded: k·(duration/1500) ns, value k mod 7.
	dur := fixture().Meta.DurationNS
	rows := map[[2]float64]bool{}
	for k := range 1500 {
		rows[[2]float64{seconds(int64(k) * (dur / 1500)), float64(k % 7)}] = true
	}
	for _, pixels := range []int{50, 200, 2000} {
		res, msg := askMetric(t, e, "metrics", Args{Name: &name, Points: true, Pixels: pixels})
		if msg != "" {
			t.Fatal(msg)
		}
		var got struct {
			Items []struct {
				Points              [][2]any `json:"points"`
				PointsTotal         int64    `json:"points_total"`
				PointsTruncated     bool     `json:"points_truncated"`
				PointsBucketSeconds *float64 `json:"points_bucket_seconds"`
				Max                 float64  `json:"max"`
				Min                 float64  `json:"min"`
			} `json:"items"`
		}
		json.Unmarshal(res, &got)
		it := got.Items[0]
		if it.PointsTruncated || it.PointsTotal != 1500 {
			t.Fatalf("pixels %d: %+v", pixels, it)
		}
		if exact := it.PointsBucketSeconds == nil; exact != (pixels == 2000) || len(it.Points) > 8*pixels && !exact {
			t.Fatalf("pixels %d: %d points, bucket %v", pixels, len(it.Points), it.PointsBucketSeconds)
		}
		sawMin, sawMax := false, false
		for _, p := range it.Points {
			v := p[1].(float64)
			if !rows[[2]float64{p[0].(float64), v}] {
				t.Fatalf("pixels %d: point %v is not a recorded row", pixels, p)
			}
			sawMin, sawMax = sawMin || v == it.Min, sawMax || v == it.Max
		}
		if !sawMin || !sawMax {
			t.Fatalf("pixels %d: the range's min or max is missing from the plot", pixels)
		}
	}
	if _, msg := askMetric(t, e, "metrics", Args{Name: &name, Points: true, Pixels: MaxPlotPixels + 1}); !strings.Contains(msg, "pixels must be") {
		t.Fatalf("oversized plot accepted: %q", msg)
	}
}

func TestDefaultMetric(t *testing.T) {
	fam := func(name string, samples int64) model.MetricFamily {
		return model.MetricFamily{Name: name, Samples: samples}
	}
	for _, tc := range []struct {
		name string
		fams []model.MetricFamily
		want string // "" for null
	}{
		{"no metrics", nil, ""},
		{"first family with samples", []model.MetricFamily{fam("a", 0), fam("b", 3), fam("c", 9)}, "b"},
		{"the default family, even after others with samples", []model.MetricFamily{fam("b", 3), fam(defaultFamily, 0)}, defaultFamily},
		{"no samples anywhere: the first family", []model.MetricFamily{fam("a", 0), fam("b", 0)}, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := fixture()
			d.MetricFamilies = tc.fams
			e, err := FromDataset(d)
			if err != nil {
				t.Fatal(err)
			}
			raw, errText := askMetric(t, e, "default_metric", Args{})
			if errText != "" {
				t.Fatal(errText)
			}
			want := "null"
			if tc.want != "" {
				want = `"` + tc.want + `"`
			}
			if string(raw) != want {
				t.Fatalf("default_metric = %s, want %s", raw, want)
			}
		})
	}
}
