package report

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dsight/dsight/internal/catalog"
	"github.com/dsight/dsight/internal/query"
)

// FirstChart is the chart a report opens on, answered while the report is
// written by the engine the page runs, with the questions the page would
// ask: its family, the family's series and the plot of the series shown
// first over the whole run. The page draws it from index.html while its
// engine is still loading (one to two seconds for a large run), then asks the
// engine again at its own width and redraws in place.
type FirstChart struct {
	Family json.RawMessage `json:"family"` // its "metric_families" item
	Series json.RawMessage `json:"series"` // the "metric_series" items of the family
	Plot   []byte          `json:"plot"`   // the "plot" answer (query.Plot.Encode), base64 in JSON
}

// firstChartSeries is how many of a family's series a chart shows before
// its legend is touched: FIRST_SERIES in web/src/metricview.js.
const firstChartSeries = 12

// firstChartPixels is the plot width asked for: what the page asks for a
// one-series chart 1,000 px wide. The page asks again at its own width
// once its engine is up.
const firstChartPixels = 500

// firstChartMaxBytes bounds what the first chart adds to index.html: a
// family of thousands of series would make the page slower to open than
// the engine is to load, so its chart waits for the engine.
var firstChartMaxBytes = 1 << 20

// firstChart answers the report's default chart from eng, reading the
// metric shards it needs from the staged report at dir. It is nil when the
// report has no metric family with series, or when its answers would take
// more than firstChartMaxBytes.
func firstChart(eng *query.Engine, view *catalog.Core, dir string, durationS float64) (*FirstChart, error) {
	name := eng.DefaultMetric()
	if name == nil {
		return nil, nil
	}
	family, err := familyItem(eng, *name)
	if err != nil {
		return nil, err
	}
	series, err := familySeries(eng, *name)
	if err != nil || len(series) == 0 {
		return nil, err // a family catalogued without series has no chart to draw
	}
	var ids []int
	for k, s := range series {
		if k == firstChartSeries {
			break
		}
		ids = append(ids, s.ID)
		if s.Reference != nil && s.Reference.SeriesID != nil {
			ids = append(ids, *s.Reference.SeriesID)
		}
	}
	from, to := 0.0, durationS
	req, err := json.Marshal(query.PlotRequest{From: &from, To: &to, Pixels: firstChartPixels, Series: ids})
	if err != nil {
		return nil, err
	}
	plot, err := plotLoading(eng, view, dir, req)
	if err != nil {
		return nil, fmt.Errorf("first chart (%s): %w", *name, err)
	}
	items, err := json.Marshal(series)
	if err != nil || len(items)+len(plot) > firstChartMaxBytes {
		return nil, err
	}
	return &FirstChart{Family: family, Series: items, Plot: plot}, nil
}

// familyItem is the family's item of the "metric_families" answer.
func familyItem(eng *query.Engine, name string) (json.RawMessage, error) {
	var env struct {
		OK     bool   `json:"ok"`
		Error  string `json:"error"`
		Result struct {
			Items []json.RawMessage `json:"items"`
		} `json:"result"`
	}
	if err := json.Unmarshal(eng.Handle([]byte(`{"op":"metric_families"}`)), &env); err != nil {
		return nil, err
	}
	if !env.OK {
		return nil, errors.New(env.Error)
	}
	for _, item := range env.Result.Items {
		var f struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(item, &f); err != nil {
			return nil, err
		}
		if f.Name == name {
			return item, nil
		}
	}
	return nil, fmt.Errorf("first chart: no family %q", name)
}

// familySeries lists a family's series through "metric_series", a page
// at a time, as the page lists them.
func familySeries(eng *query.Engine, name string) ([]query.MetricSeriesRecord, error) {
	var out []query.MetricSeriesRecord
	for offset := 0; ; offset += 1000 {
		req, _ := json.Marshal(map[string]any{"op": "metric_series", "args": map[string]any{"name": name, "offset": offset, "limit": 1000}})
		var env struct {
			OK     bool   `json:"ok"`
			Error  string `json:"error"`
			Result struct {
				Total int                        `json:"total"`
				Items []query.MetricSeriesRecord `json:"items"`
			} `json:"result"`
		}
		if err := json.Unmarshal(eng.Handle(req), &env); err != nil {
			return nil, err
		}
		if !env.OK {
			return nil, errors.New(env.Error)
		}
		out = append(out, env.Result.Items...)
		if len(out) >= env.Result.Total || len(env.Result.Items) == 0 {
			return out, nil
		}
	}
}

// plotLoading asks for a plot, handing the engine the shards it names
// from the report at dir until it answers, as the page does.
func plotLoading(eng *query.Engine, view *catalog.Core, dir string, req []byte) ([]byte, error) {
	for range 4 {
		plot, env := eng.HandlePlot(req)
		if env == nil {
			return plot, nil
		}
		var failure struct {
			Error  string            `json:"error"`
			Shards []query.ShardNeed `json:"shards"`
		}
		if err := json.Unmarshal(env, &failure); err != nil {
			return nil, err
		}
		if len(failure.Shards) == 0 {
			return nil, errors.New(failure.Error)
		}
		if err := LoadMetricShards(eng, view, dir, failure.Shards); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("metric shards did not load")
}
