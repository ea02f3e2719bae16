package query

import "fmt"

// The page's metric answers (window.traceExplorer.queryMetrics and
// listMetricSeries) keep the shapes scripts written for the reference
// explorer rely on (the page compatibility contract): an array of every
// matching series, no page; labels as an object; carried_setting as the
// array of points at the latest timestamp strictly before the range. The
// CLI's paged "metrics" and "metric_series" answers are unchanged; these
// ops add the browser-facing variant over the same records.

// PageMetricSeries is a series' metadata in the page's shape.
type PageMetricSeries struct {
	MetricSeriesRecord
	Labels map[string]string `json:"labels"`
}

// PageMetricItem is one series of the page's "metrics" answer.
type PageMetricItem struct {
	MetricItem
	Labels         map[string]string `json:"labels"`
	CarriedSetting *[][4]any         `json:"carried_setting,omitempty"`
}

func labelMap(ls []MetricLabelRecord) map[string]string {
	out := make(map[string]string, len(ls))
	for _, l := range ls {
		out[l.Key] = l.Value
	}
	return out
}

// pageMetricSeries answers "page_metric_series": every matching series'
// metadata, in catalog order.
func (e *Engine) pageMetricSeries(a Args) []PageMetricSeries {
	match := e.matchSeries(a)
	out := make([]PageMetricSeries, len(match))
	for k, i := range match {
		r := seriesRecord(&e.c.Metrics[i])
		out[k] = PageMetricSeries{MetricSeriesRecord: r, Labels: labelMap(r.Labels)}
	}
	if a.Limit != nil && *a.Limit < len(out) {
		out = out[:*a.Limit]
	}
	return out
}

// pageMetrics answers "page_metrics": "metrics" over every matching series.
// It needs every shard they read; a reader loads the shards a
// shards_needed failure names and asks again.
func (e *Engine) pageMetrics(a Args) ([]PageMetricItem, error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	idx := e.matchSeries(a)
	held, miss := e.claim(idx)
	if len(miss) > 0 {
		return nil, shardsNeeded("metrics", miss)
	}
	defer e.release(held)
	out := make([]PageMetricItem, 0, len(idx))
	for _, i := range idx {
		item, err := e.metricItem(i, w, a.Points, a.Pixels)
		if err != nil {
			return nil, fmt.Errorf("metric series %d (%s): %w", i, e.c.Metrics[i].Name, err)
		}
		pi := PageMetricItem{MetricItem: item, Labels: labelMap(item.Labels)}
		if item.CarriedSetting != nil {
			rows, err := e.carriedRows(i, w.fromNS)
			if err != nil {
				return nil, fmt.Errorf("metric series %d (%s): %w", i, e.c.Metrics[i].Name, err)
			}
			pi.CarriedSetting = &rows
		}
		out = append(out, pi)
	}
	return out, nil
}

// carriedRows is every row at the latest timestamp strictly before fromNS,
// with its evidence.
func (e *Engine) carriedRows(i int, fromNS int64) ([][4]any, error) {
	p, err := e.pyramidOf(i)
	if err != nil {
		return nil, err
	}
	row, _, found, err := p.LastAtOrBefore(fromNS - 1)
	if err != nil || !found {
		return [][4]any{}, err
	}
	rows, err := p.RowsAt(row.T)
	if err != nil {
		return nil, err
	}
	out := make([][4]any, len(rows))
	for k, r := range rows {
		out[k] = rowPoint(r)
	}
	return out, nil
}
