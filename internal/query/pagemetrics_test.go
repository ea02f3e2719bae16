package query

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
)

// evidencePayload is a summary built with per-row evidence: point k came from
// source src at line lines[k].
func evidencePayload(t testing.TB, temporal pyramid.Temporal, times []int64, values []float64, src int64, lines []int64) []byte {
	t.Helper()
	b, err := pyramid.NewBuilder(pyramid.Options{Temporal: temporal, Evidence: true})
	if err != nil {
		t.Fatal(err)
	}
	for k := range times {
		if err := b.AddFrom(times[k], values[k], false, src, lines[k]); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := b.Finish().EncodeShard()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// The page's metric answers: every matching series in one array (no page of
// 100), labels as an object, points [t, v, source_id, line], and the
// carried setting as the array of rows at the latest earlier timestamp with
// their evidence. The CLI's paged answer keeps its shape.
func TestPageMetricShapes(t *testing.T) {
	d := fixture()
	dur := d.Meta.DurationNS
	w := "decode-0"
	const n = 130 // more than the CLI's default page
	payloads := map[string][]byte{}
	d.MetricFamilies = []model.MetricFamily{{Name: "g", SeriesCount: n}, {Name: "s", SeriesCount: 1}}
	for i := range n {
		id := fmt.Sprintf("g%d", i)
		payloads[id] = evidencePayload(t, pyramid.Sample, []int64{dur / 4, dur / 2}, []float64{1, float64(i)}, 3, []int64{10, 11})
		d.Metrics = append(d.Metrics, model.MetricSeries{ID: i, Name: "g", Worker: &w, Temporal: "sample", Labels: []model.MetricLabel{{Key: "le", Value: fmt.Sprint(i)}},
			Shard: &model.MetricShard{Shard: model.Shard{ID: id}}})
	}
	payloads["s"] = evidencePayload(t, pyramid.Setting, []int64{-5e9, dur / 2}, []float64{8, 16}, 4, []int64{7, 9})
	d.Metrics = append(d.Metrics, model.MetricSeries{ID: n, Name: "s", Worker: &w, Temporal: "setting", Shard: &model.MetricShard{Shard: model.Shard{ID: "s"}}})
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	name := "g"
	res, msg := askMetric(t, e, "page_metric_series", Args{Name: &name})
	var series []struct {
		ID     int               `json:"id"`
		Labels map[string]string `json:"labels"`
	}
	if err := json.Unmarshal(res, &series); err != nil || msg != "" {
		t.Fatalf("%s %v %s", msg, err, res)
	}
	if len(series) != n || series[129].Labels["le"] != "129" {
		t.Fatalf("%d series, last labels %v", len(series), series[len(series)-1].Labels)
	}
	if _, msg := askMetric(t, e, "page_metrics", Args{}); msg == "" {
		t.Fatal("page_metrics answered without its shards")
	}
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	res, msg = askMetric(t, e, "page_metrics", Args{Points: true})
	var items []struct {
		ID             int               `json:"id"`
		Labels         map[string]string `json:"labels"`
		Points         [][]any           `json:"points"`
		CarriedSetting [][]any           `json:"carried_setting"`
		Samples        int               `json:"samples"`
	}
	if err := json.Unmarshal(res, &items); err != nil || msg != "" {
		t.Fatalf("%s %v", msg, err)
	}
	if len(items) != n+1 {
		t.Fatalf("%d items, want %d", len(items), n+1)
	}
	got, _ := json.Marshal(items[5].Points)
	want := fmt.Sprintf("[[%v,1,3,10],[%v,5,3,11]]", float64(dur/4)/1e9, float64(dur/2)/1e9)
	if string(got) != want || items[5].Labels["le"] != "5" {
		t.Errorf("points %s, want %s; labels %v", got, want, items[5].Labels)
	}
	got, _ = json.Marshal(items[n].CarriedSetting)
	if string(got) != "[[-5,8,4,7]]" {
		t.Errorf("carried setting %s", got)
	}
	// metricDataStatus names the families it holds.
	res, _ = askMetric(t, e, "metric_cache", Args{})
	var cache struct {
		FamilyNames []string `json:"family_names"`
	}
	if err := json.Unmarshal(res, &cache); err != nil || fmt.Sprint(cache.FamilyNames) != "[g s]" {
		t.Errorf("family names %v (%v)", cache.FamilyNames, err)
	}
	// The CLI's answer stays paged, its points carry the same evidence.
	res, _ = askMetric(t, e, "metrics", Args{Points: true})
	var page struct {
		Total int `json:"total"`
		Items []struct {
			Points [][]any `json:"points"`
		} `json:"items"`
	}
	if err := json.Unmarshal(res, &page); err != nil || page.Total != n+1 || len(page.Items) != 100 {
		t.Fatalf("CLI page: total %d, %d items, %v", page.Total, len(page.Items), err)
	}
	if got, _ := json.Marshal(page.Items[5].Points); string(got) != want {
		t.Errorf("CLI points %s, want %s", got, want)
	}
}
