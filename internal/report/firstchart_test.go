package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

// withMetrics adds a family without samples and a 14-series family with
// samples, each series summarized and compressed as the importer does.
func withMetrics(t *testing.T, d *model.Dataset) *model.Dataset {
	t.Helper()
	d.MetricFamilies = []model.MetricFamily{
		{Name: "quiet", Component: "Frontend", Unit: "requests", Endpoints: []string{}},
		{Name: "busy", Component: "GPU", Unit: "%", SeriesCount: 14, Samples: 14 * 50, Endpoints: []string{}},
	}
	for k := range 14 {
		b, err := pyramid.NewBuilder(pyramid.Options{Temporal: pyramid.Sample})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			if err := b.Add(int64(i)*(d.Meta.DurationNS/50), float64((i*(k+3))%11), false); err != nil {
				t.Fatal(err)
			}
		}
		p := b.Finish()
		raw, err := p.EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		gz, err := shard.Compress(raw)
		if err != nil {
			t.Fatal(err)
		}
		gpu := string(rune('a' + k))
		d.Metrics = append(d.Metrics, model.MetricSeries{
			ID: k, Name: "busy", GPU: &gpu, Labels: []model.MetricLabel{{Key: "gpu", Value: "<b>" + gpu + "</b>"}}, Temporal: "sample",
			SourceIDs: []int{0}, Samples: 50, Rows: 50,
			Summary: &model.MetricSummary{Payload: model.InMemory(gz), DecodedBytes: len(raw),
				MetricBounds: model.MetricBounds{Chunks: p.ChunkCount(), FirstNS: 0, LastNS: 49 * (d.Meta.DurationNS / 50)}},
		})
	}
	return d
}

var bootRecord = regexp.MustCompile(`(?s)<script type="application/json" id="dsight-boot">(.*?)</script>`)

func readBoot(t *testing.T, dir string) map[string]json.RawMessage {
	t.Helper()
	html, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	m := bootRecord.FindSubmatch(html)
	if m == nil {
		t.Fatal("index.html has no boot record")
	}
	var boot map[string]json.RawMessage
	if err := json.Unmarshal(m[1], &boot); err != nil {
		t.Fatal(err)
	}
	return boot
}

func TestFirstChartIsTheEnginesAnswer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(withMetrics(t, dataset("job")), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	var first FirstChart
	if err := json.Unmarshal(readBoot(t, dir)["first_chart"], &first); err != nil {
		t.Fatal(err)
	}
	var family query.MetricFamilyRecord
	var series []query.MetricSeriesRecord
	if err := json.Unmarshal(first.Family, &family); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(first.Series, &series); err != nil {
		t.Fatal(err)
	}
	// The family with samples, not the first one; all its series listed.
	if family.Name != "busy" || len(series) != 14 {
		t.Fatalf("first chart is %s with %d series", family.Name, len(series))
	}

	// The same question asked of the written report, as the CLI asks it.
	core, rdir, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := query.New(core)
	if err != nil {
		t.Fatal(err)
	}
	// The family and series are the engine's answers, byte for byte: the
	// page reads their keys as the engine writes them.
	for q, want := range map[string]string{
		`{"op":"metric_families"}`:                                   string(first.Family),
		`{"op":"metric_series","args":{"name":"busy","limit":1000}}`: string(first.Series),
	} {
		var env struct {
			Result struct {
				Items []json.RawMessage `json:"items"`
			} `json:"result"`
		}
		if err := json.Unmarshal(eng.Handle([]byte(q)), &env); err != nil {
			t.Fatal(err)
		}
		got := ""
		if q == `{"op":"metric_families"}` {
			for _, it := range env.Result.Items {
				if strings.Contains(string(it), `"name":"busy"`) {
					got = string(it)
				}
			}
		} else {
			b, _ := json.Marshal(env.Result.Items)
			got = string(b)
		}
		if got != want {
			t.Errorf("%s: index.html holds\n%s\nthe engine answers\n%s", q, want, got)
		}
	}
	for i := range 12 {
		payload, err := ReadMetricShard(rdir, &core.Metrics[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := eng.LoadShard(core.Metrics[i].Shard.ID, payload); err != nil {
			t.Fatal(err)
		}
	}
	from, to := 0.0, float64(core.Meta.DurationNS)/1e9
	req, _ := json.Marshal(query.PlotRequest{From: &from, To: &to, Pixels: firstChartPixels, Series: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}})
	want, env := eng.HandlePlot(req)
	if env != nil {
		t.Fatalf("plot: %s", env)
	}
	if !bytes.Equal(first.Plot, want) {
		t.Fatalf("first chart's plot (%d bytes) differs from the engine's answer (%d bytes)", len(first.Plot), len(want))
	}
}

func TestNoFirstChartOverItsBound(t *testing.T) {
	defer func(n int) { firstChartMaxBytes = n }(firstChartMaxBytes)
	firstChartMaxBytes = 1000
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(withMetrics(t, dataset("job")), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := readBoot(t, dir)["first_chart"]; ok {
		t.Fatal("the first chart exceeds its bound and was written anyway")
	}
}

func TestNoFirstChartWithoutSeries(t *testing.T) {
	onlyCatalogued := dataset("job")
	onlyCatalogued.MetricFamilies = []model.MetricFamily{{Name: "quiet", Component: "Frontend", Endpoints: []string{}}}
	for name, d := range map[string]*model.Dataset{"no metrics": dataset("job"), "a family without series": onlyCatalogued} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "report")
			if _, err := Write(d, assets(t), dir, Options{}); err != nil {
				t.Fatal(err)
			}
			if _, ok := readBoot(t, dir)["first_chart"]; ok {
				t.Fatal("the report has a first chart")
			}
		})
	}
}
