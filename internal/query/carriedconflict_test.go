package query

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
)

// Two different limits recorded at one time before the range are both the
// carried setting: the page's answer lists each with its evidence (never
// one null), the plot lists both values for the held line, and every other
// answer (statistics, the CLI's carried point, points in range) is what it
// was.
func TestCarriedConflictingSettings(t *testing.T) {
	d := fixture()
	dur := d.Meta.DurationNS
	w := "decode-0"
	raw := evidencePayload(t, pyramid.Setting, []int64{-5e9, -5e9, -5e9, dur / 2}, []float64{8, 16, 8, 32}, 4, []int64{7, 8, 9, 10})
	d.MetricFamilies = []model.MetricFamily{{Name: "s", SeriesCount: 1}}
	d.Metrics = []model.MetricSeries{{ID: 0, Name: "s", Worker: &w, Temporal: "setting", Shard: &model.MetricShard{Shard: model.Shard{ID: "s"}}}}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.LoadShard("s", raw); err != nil {
		t.Fatal(err)
	}
	res, msg := askMetric(t, e, "page_metrics", Args{Points: true})
	var items []struct {
		Samples        int     `json:"samples"`
		Points         [][]any `json:"points"`
		CarriedSetting [][]any `json:"carried_setting"`
	}
	if err := json.Unmarshal(res, &items); err != nil || msg != "" || len(items) != 1 {
		t.Fatalf("%s %v %s", msg, err, res)
	}
	got, _ := json.Marshal(items[0].CarriedSetting)
	if string(got) != "[[-5,8,4,7],[-5,16,4,8]]" {
		t.Errorf("carried setting %s, want both limits with their lines", got)
	}
	pts, _ := json.Marshal(items[0].Points)
	if want := fmt.Sprintf("[[%v,32,4,10]]", float64(dur/2)/1e9); items[0].Samples != 1 || string(pts) != want {
		t.Errorf("samples %d points %s, want 1 and %s", items[0].Samples, pts, want)
	}
	// The CLI's documented carried point is unchanged: one point, the gap.
	res, _ = askMetric(t, e, "metrics", Args{})
	var page struct {
		Items []struct {
			CarriedSetting []any `json:"carried_setting"`
		} `json:"items"`
	}
	if err := json.Unmarshal(res, &page); err != nil || len(page.Items) != 1 {
		t.Fatalf("%v %s", err, res)
	}
	if got, _ := json.Marshal(page.Items[0].CarriedSetting); string(got) != "[-5,null]" {
		t.Errorf("CLI carried setting %s", got)
	}
	plot, env := e.HandlePlot([]byte(`{"pixels":100,"series":[0]}`))
	if env != nil {
		t.Fatalf("%s", env)
	}
	s := decodePlot(t, plot).series[0]
	flags := int(s.fields[2])
	if flags&PlotCarried == 0 || flags&PlotCarriedConflict == 0 || s.fields[13] != -5 || !math.IsNaN(s.fields[14]) {
		t.Fatalf("plot flags %b carried %v %v", flags, s.fields[13], s.fields[14])
	}
	if fmt.Sprint(s.carried) != "[8 16]" {
		t.Errorf("plot carried values %v, want [8 16]", s.carried)
	}
	// A setting carried without a conflict adds no block.
	one := evidencePayload(t, pyramid.Setting, []int64{-5e9, dur / 2}, []float64{8, 32}, 4, []int64{7, 10})
	if e, err = FromDataset(d); err != nil {
		t.Fatal(err)
	}
	if err := e.LoadShard("s", one); err != nil {
		t.Fatal(err)
	}
	plot, _ = e.HandlePlot([]byte(`{"pixels":100,"series":[0]}`))
	if s := decodePlot(t, plot).series[0]; int(s.fields[2])&PlotCarriedConflict != 0 || s.fields[14] != 8 {
		t.Errorf("plain carried setting: flags %b value %v", int(s.fields[2]), s.fields[14])
	}
}
