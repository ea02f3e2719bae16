package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/shard"
)

// A large summary is written as a segmented gzip member, which a whole
// read inflates as before; a metrics question over a narrow window
// inflates its head, header, index and the few chunks it reads, and
// answers as over the whole summary.
func TestMetricQuestionInflatesOnlyTheSegmentsItReads(t *testing.T) {
	d := dataset("job")
	b, err := pyramid.NewBuilder(pyramid.Options{Temporal: pyramid.Sample, ChunkRows: 2000})
	if err != nil {
		t.Fatal(err)
	}
	const n = 60000
	for i := range n {
		if err := b.Add(int64(i)*(d.Meta.DurationNS/n), float64(i%113)+float64(i)/1e5, i%501 == 7); err != nil {
			t.Fatal(err)
		}
	}
	p := b.Finish()
	raw, err := p.EncodeShard()
	if err != nil {
		t.Fatal(err)
	}
	gz, err := shard.CompressSummary(raw)
	if err != nil {
		t.Fatal(err)
	}
	if segs, ok, err := shard.Segments(gz); !ok || err != nil || len(raw) < shard.SegmentedFrom {
		t.Fatalf("a %d-byte summary is not segmented: %d segments, %v", len(raw), len(segs), err)
	}
	d.MetricFamilies = []model.MetricFamily{{Name: "big", Unit: "x", SeriesCount: 1, Samples: n, Endpoints: []string{}}}
	d.Metrics = []model.MetricSeries{{ID: 0, Name: "big", Temporal: "sample", SourceIDs: []int{0}, Samples: n, Rows: n,
		Summary: &model.MetricSummary{Payload: model.InMemory(gz), DecodedBytes: len(raw),
			MetricBounds: model.MetricBounds{Chunks: p.ChunkCount(), LastNS: (n - 1) * (d.Meta.DurationNS / n)}}}}
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(d, assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	core, rdir, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func(f func([]byte, shard.Segment) ([]byte, error)) { inflateSegment = f }(inflateSegment)
	inflated := 0
	inflateSegment = func(gz []byte, s shard.Segment) ([]byte, error) {
		inflated++
		return shard.InflateSegment(gz, s)
	}
	ask := func(e *query.Engine, q string) []byte {
		t.Helper()
		var env struct {
			Result query.MetricPlan `json:"result"`
		}
		if err := json.Unmarshal(e.Handle([]byte(`{"op":"metric_plan","args":`+q+`}`)), &env); err != nil {
			t.Fatal(err)
		}
		if err := LoadMetricShards(e, core, rdir, env.Result.Shards); err != nil {
			t.Fatal(err)
		}
		return e.Handle([]byte(`{"op":"metrics","args":` + q + `}`))
	}
	whole, err := query.New(core)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := ReadMetricShard(rdir, &core.Metrics[0])
	if err != nil || !bytes.Equal(payload, raw) {
		t.Fatalf("the whole read: %v", err)
	}
	if err := whole.LoadShard(core.Metrics[0].Shard.ID, payload); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`{"from":5.5,"to":5.6}`, `{"from":1,"to":11,"points":true}`, `{"points":true,"pixels":300}`} {
		inflated = 0
		e, err := query.New(core)
		if err != nil {
			t.Fatal(err)
		}
		got := ask(e, q)
		if want := whole.Handle([]byte(`{"op":"metrics","args":` + q + `}`)); !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s\nwhole:\n%s", q, got, want)
		}
		if q == `{"from":5.5,"to":5.6}` && (inflated < 4 || inflated > p.ChunkCount()/2) {
			t.Errorf("%s inflated %d segments of %d chunks' summary", q, inflated, p.ChunkCount())
		}
	}
}
