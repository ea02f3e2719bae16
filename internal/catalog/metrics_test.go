package catalog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

func metricSample() *model.Dataset {
	d := sample()
	d.Meta.IterationTimezone = "Europe/Berlin"
	res, id := 0.001, 1
	d.MetricFamilies = []model.MetricFamily{
		{Name: "log_tokenspeed_active_decode_requests", Component: "Workers", Group: "Log-derived metrics", GroupOrder: 90, Unit: "requests", SeriesCount: 1, Samples: 3, Endpoints: []string{"worker_log"}, SourceKind: "worker_log", Generator: "dynamo-tokenspeed", Temporal: "sample"},
		{Name: "gpu_util", Component: "GPU", Unit: "%", Endpoints: []string{}}, // catalogued without samples
	}
	d.Metrics = []model.MetricSeries{
		{ID: 0, Name: "log_tokenspeed_active_decode_requests", Worker: ptr("decode-0"), Rank: ptr("0"), RankKind: ptr("attention_tp"), Labels: []model.MetricLabel{}, Temporal: "sample", TimeResolutionS: &res,
			Reference: &model.MetricReference{Name: "log_tokenspeed_decode_request_limit", Label: "limit", SeriesID: &id}, SourceIDs: []int{0}, Samples: 3, Rows: 3,
			Shard: &model.MetricShard{
				Shard:        model.Shard{ID: "ab", Bytes: 10, DecodedBytes: 20, Parts: []model.ShardPart{{ID: "ab", Path: "detail/ab.js", Bytes: 10}}},
				MetricBounds: model.MetricBounds{Chunks: 2, FirstNS: -5, LastNS: 9}}},
		{ID: 1, Name: "log_tokenspeed_decode_request_limit", Worker: ptr("decode-0"), Labels: []model.MetricLabel{{Key: "phase", Value: "decode"}}, Temporal: "setting", SourceIDs: []int{0},
			Reference: &model.MetricReference{Name: "x"}, Shard: &model.MetricShard{Shard: model.Shard{ID: "cd"}}},
	}
	return d
}

func TestMetricsRoundTrip(t *testing.T) {
	want := metricSample()
	raw, err := shard.Encode(Encode(want))
	if err != nil {
		t.Fatal(err)
	}
	s, err := shard.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.MetricFamilies, want.MetricFamilies) || !reflect.DeepEqual(got.Metrics, want.Metrics) || got.Meta.IterationTimezone != "Europe/Berlin" {
		t.Fatalf("round trip differs:\n got %+v\n     %+v\nwant %+v\n     %+v", got.MetricFamilies, got.Metrics, want.MetricFamilies, want.Metrics)
	}
	if got.Metrics[1].Reference.SeriesID != nil || got.Metrics[0].GPU != nil {
		t.Fatal("a missing reference or GPU became a value")
	}
}

func TestMetricsDecodeRejects(t *testing.T) {
	for name, damage := range map[string]func(*shard.Shard){
		"id out of order": func(s *shard.Shard) {
			t, _ := s.Table(TableMetricSeries)
			c, _ := t.Column("id")
			c.Ints[0], c.Ints[1] = c.Ints[1], c.Ints[0]
		},
		"labels out of order": func(s *shard.Shard) {
			t, _ := s.Table(TableMetricLabels)
			c, _ := t.Column("series")
			c.Ints[0] = 5
		},
		"a missing column": func(s *shard.Shard) {
			t, _ := s.Table(TableMetricSeries)
			t.Columns = t.Columns[:len(t.Columns)-1]
		},
	} {
		s := Encode(metricSample())
		damage(s)
		if _, err := Open(s); err == nil || !strings.Contains(err.Error(), "metric_series") && !strings.Contains(err.Error(), "metric series") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
