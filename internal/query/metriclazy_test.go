//go:build !js

package query

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
)

// lazyEngine is an engine over three many-chunked summaries (a gauge of
// 40,000 rows, a capacity series paired with a limit setting, and that
// setting) with every shard handed over; whole also decodes every chunk
// at once, as LoadShard did before chunks were decoded on demand.
func lazyEngine(t *testing.T, whole bool) *Engine {
	t.Helper()
	d := fixture()
	dur := d.Meta.DurationNS
	build := func(o pyramid.Options, n int, value func(k int) float64) *pyramid.Pyramid {
		o.ChunkRows = 512
		b, err := pyramid.NewBuilder(o)
		if err != nil {
			t.Fatal(err)
		}
		for k := range n {
			if err := b.Add(int64(k)*(dur/int64(n)), value(k), k%97 == 5); err != nil {
				t.Fatal(err)
			}
		}
		return b.Finish()
	}
	gauge := build(pyramid.Options{Temporal: pyramid.Sample}, 40000, func(k int) float64 { return float64(k%113) + float64(k)/1e4 })
	limit := build(pyramid.Options{Temporal: pyramid.Setting}, 3000, func(k int) float64 { return float64(200 + k/500) })
	used := build(pyramid.Options{Temporal: pyramid.Sample, Limit: limit}, 20000, func(k int) float64 { return float64(k % 181) })
	payloads := map[string]*pyramid.Pyramid{"gauge": gauge, "used": used, "limit": limit}
	lim := 2
	d.MetricFamilies = []model.MetricFamily{{Name: "g", SeriesCount: 1}, {Name: "u", SeriesCount: 1}, {Name: "l", SeriesCount: 1}}
	d.Metrics = []model.MetricSeries{
		{ID: 0, Name: "g", Temporal: "sample", Shard: &model.MetricShard{Shard: model.Shard{ID: "gauge"}}},
		{ID: 1, Name: "u", Temporal: "sample", Shard: &model.MetricShard{Shard: model.Shard{ID: "used"}},
			Reference: &model.MetricReference{Name: "l", SeriesID: &lim}},
		{ID: 2, Name: "l", Temporal: "setting", Shard: &model.MetricShard{Shard: model.Shard{ID: "limit"}}},
	}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	for id, p := range payloads {
		raw, err := p.EncodeShard()
		if err != nil {
			t.Fatal(err)
		}
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	if whole {
		for i := range d.Metrics {
			if _, err := e.entryOf(i).whole(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return e
}

// decodedChunks counts the chunks of series i's summary decoded so far.
func decodedChunks(e *Engine, i int) (decoded, all int) {
	p := e.entryOf(i).current()
	return p.ChunkCount() - len(p.Unloaded()), p.ChunkCount()
}

// A metrics question (and the page's page_metrics) decodes only the chunks
// its walks read, and answers byte for byte as over summaries decoded
// whole: narrow and wide ranges, points, plots, carried settings and the
// capacity legend.
func TestMetricsDecodeOnlyTheChunksTheyRead(t *testing.T) {
	e := lazyEngine(t, false)
	for i := range 3 {
		if n, all := decodedChunks(e, i); n != 0 || all < 8 {
			t.Fatalf("series %d: %d of %d chunks decoded before any answer", i, n, all)
		}
	}
	narrow := []byte(`{"op":"metrics","args":{"from":6.1,"to":6.2}}`)
	e.Handle(narrow)
	for i := range 3 {
		if n, all := decodedChunks(e, i); n == 0 || n == all {
			t.Errorf("series %d: a 0.1 s window decoded %d of %d chunks", i, n, all)
		}
	}

	ref := lazyEngine(t, true)
	var asks [][]byte
	for _, a := range []string{
		`{"from":6.1,"to":6.2}`, `{"from":6.1,"to":6.2,"points":true}`, `{}`, `{"points":true}`,
		`{"from":0,"to":0.001,"points":true}`, `{"from":11.99,"to":12,"points":true}`,
		`{"from":2,"to":9,"points":true,"pixels":300}`, `{"points":true,"pixels":40}`,
		`{"name":"u","from":3,"to":3.5}`, `{"name":"l","from":4.4,"to":4.6,"points":true}`,
		`{"from":5,"to":5}`, `{"offset":1,"limit":1,"from":1,"to":11,"points":true}`,
	} {
		asks = append(asks, []byte(`{"op":"metrics","args":`+a+`}`))
	}
	asks = append(asks, narrow, []byte(`{"op":"page_metrics","args":{"from":6.1,"to":6.2,"points":true}}`),
		[]byte(`{"op":"page_metrics","args":{"name":"l","from":2,"to":3}}`))
	for _, fresh := range []bool{true, false} {
		for _, q := range asks {
			got := e
			if fresh {
				got = lazyEngine(t, false)
			}
			if a, b := got.Handle(q), ref.Handle(q); !bytes.Equal(a, b) {
				t.Errorf("%s (fresh %v):\n%s\nwhole:\n%s", q, fresh, a, b)
			}
		}
	}
}

// The other answers read a summary whole: after a plot or range statistics
// every chunk is decoded, and the answer is the whole one's.
func TestOtherMetricAnswersDecodeTheWholeSummary(t *testing.T) {
	ref := lazyEngine(t, true)
	for _, q := range []string{
		`{"op":"stats","args":{"from":6.1,"to":6.2}}`,
		`{"op":"stats","args":{}}`,
	} {
		e := lazyEngine(t, false)
		if a, b := e.Handle([]byte(q)), ref.Handle([]byte(q)); !bytes.Equal(a, b) {
			t.Errorf("%s:\n%s\nwhole:\n%s", q, a, b)
		}
		if n, all := decodedChunks(e, 0); n != all {
			t.Errorf("%s decoded %d of %d chunks", q, n, all)
		}
	}
	e := lazyEngine(t, false)
	a, err := e.MetricPlot(PlotRequest{Pixels: 50, Series: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ref.MetricPlot(PlotRequest{Pixels: 50, Series: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("plot differs:\n%v\nwhole:\n%v", a, b)
	}
	for i := range 3 {
		if n, all := decodedChunks(e, i); n != all {
			t.Errorf("plot of series %d decoded %d of %d chunks", i, n, all)
		}
	}
}
