package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/tools/gen/synth"
)

func genMetricsRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 200, Timezone: "UTC", Sources: synth.DefaultSources | synth.SourceTokenSpeed}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pointSink keeps every point of one family, in read order.
type pointSink struct {
	family string
	ids    map[int32]bool
	t      []int64
	v      []float64
}

func (s *pointSink) Series(info *tachometer.SeriesInfo) error {
	if info.Name == s.family {
		s.ids[int32(info.ID)] = true
	}
	return nil
}

func (s *pointSink) Points(ps []tachometer.Point) error {
	for _, p := range ps {
		if s.ids[p.Series] {
			s.t, s.v = append(s.t, p.TimeNS), append(s.v, p.Value)
		}
	}
	return nil
}

type metricAnswer struct {
	Total int `json:"total"`
	Items []struct {
		Name      string          `json:"name"`
		Samples   int64           `json:"samples"`
		Min       *float64        `json:"min"`
		Max       *float64        `json:"max"`
		Last      *float64        `json:"last"`
		FirstTime *float64        `json:"first_time"`
		LastTime  *float64        `json:"last_time"`
		Points    [][2]*float64   `json:"points"`
		Total     *int64          `json:"points_total"`
		Truncated *bool           `json:"points_truncated"`
		Capacity  json.RawMessage `json:"capacity"`
		Reference *struct {
			SeriesID *int `json:"series_id"`
		} `json:"reference"`
	} `json:"items"`
}

func TestQueryMetricsMatchesCapture(t *testing.T) {
	needAssets(t)
	runDir := genMetricsRun(t)
	out := filepath.Join(t.TempDir(), "report")
	code, stdout, stderr := dsight(t, "build", runDir, "-o", out, "--iteration-timezone", "UTC", "--json")
	if code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	var built struct {
		Summary struct {
			Meta struct {
				OriginNS string `json:"origin_ns"`
			} `json:"meta"`
			Counts struct {
				Metrics int `json:"metrics"`
			} `json:"counts"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &built); err != nil || built.Summary.Counts.Metrics == 0 {
		t.Fatalf("build summary: %v %s", err, stdout)
	}
	origin, _ := strconv.ParseInt(built.Summary.Meta.OriginNS, 10, 64)

	const family, from, to = "dynamo_frontend_inflight_requests", 100.0, 300.0
	code, stdout, stderr = dsight(t, "query", out, "metrics", "--name", family, "--from", "100", "--to", "300", "--points")
	if code != 0 {
		t.Fatal(stderr)
	}
	var ans metricAnswer
	if err := json.Unmarshal([]byte(stdout), &ans); err != nil || ans.Total != 1 || len(ans.Items) != 1 {
		t.Fatalf("metrics answer: %v %s", err, stdout)
	}
	got := ans.Items[0]

	// The same numbers, computed from the capture's own rows: one row per
	// timestamp, identical duplicates once, conflicting values a gap.
	c, err := tachometer.Discover(filepath.Join(runDir, "logs", "tachometer", "local"), false)
	if err != nil {
		t.Fatal(err)
	}
	sink := &pointSink{family: family, ids: map[int32]bool{}}
	if _, err := tachometer.Read(c, tachometer.Options{}, sink); err != nil {
		t.Fatal(err)
	}
	byTime := map[int64][]float64{}
	for k, tm := range sink.t {
		if tm >= origin+int64(from*1e9) && tm <= origin+int64(to*1e9) {
			byTime[tm] = append(byTime[tm], sink.v[k])
		}
	}
	var times []int64
	for tm := range byTime {
		times = append(times, tm)
	}
	sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
	var n int64
	var lo, hi, last float64
	var first, lastT int64
	for _, tm := range times {
		vs, ok := byTime[tm], true
		for _, v := range vs {
			ok = ok && v == vs[0] && !math.IsNaN(v) && !math.IsInf(v, 0)
		}
		if !ok {
			continue
		}
		v := vs[0]
		if n == 0 {
			lo, hi, first = v, v, tm
		}
		lo, hi, last, lastT = min(lo, v), max(hi, v), v, tm
		n++
	}
	if n == 0 {
		t.Fatal("the capture has no row of the family in the range")
	}
	if got.Samples != n || *got.Min != lo || *got.Max != hi || *got.Last != last ||
		*got.FirstTime != float64(first-origin)/1e9 || *got.LastTime != float64(lastT-origin)/1e9 {
		t.Fatalf("metrics answer %+v; capture gives samples %d min %v max %v last %v first %d last %d", got, n, lo, hi, last, first-origin, lastT-origin)
	}
	if *got.Total != n || len(got.Points) != int(min(n, 1000)) || *got.Truncated != (n > 1000) {
		t.Fatalf("points: %d listed of %d, truncated %v; capture has %d", len(got.Points), *got.Total, *got.Truncated, n)
	}
	for k, p := range got.Points {
		if *p[0] != float64(times[k]-origin)/1e9 || *p[1] != byTime[times[k]][0] {
			t.Fatalf("point %d is %v, capture row at %d is %v", k, []float64{*p[0], *p[1]}, times[k]-origin, byTime[times[k]])
		}
	}

	// A capacity series answers its legend against its limit.
	code, stdout, stderr = dsight(t, "query", out, "metrics", "--name", "log_tokenspeed_active_decode_requests")
	if code != 0 {
		t.Fatal(stderr)
	}
	ans = metricAnswer{}
	if err := json.Unmarshal([]byte(stdout), &ans); err != nil || len(ans.Items) == 0 {
		t.Fatalf("capacity answer: %v %s", err, stdout)
	}
	for _, it := range ans.Items {
		var c struct {
			Limit        string    `json:"limit"`
			HighestUsage []float64 `json:"highest_usage"`
		}
		json.Unmarshal(it.Capacity, &c)
		if it.Reference == nil || it.Reference.SeriesID == nil || c.Limit == "unavailable" || len(c.HighestUsage) != 2 {
			t.Fatalf("capacity series without a usable limit: %s", it.Capacity)
		}
	}
}

func TestMetricShardsRoundTrip(t *testing.T) {
	needAssets(t)
	runDir := genMetricsRun(t)
	out := filepath.Join(t.TempDir(), "report")
	if code, _, stderr := dsight(t, "build", runDir, "-o", out, "--iteration-timezone", "UTC"); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	mb, err := os.ReadFile(filepath.Join(out, report.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m report.Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, f := range m.Files {
		listed[f.Path] = true
	}
	core, dir, err := report.OpenDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(core.Metrics) == 0 || len(core.MetricFamilies) == 0 {
		t.Fatal("the core lists no metrics")
	}
	scripts := map[string]bool{} // the metric summaries' scripts
	var payload, alone int
	for i := range core.Metrics {
		s := &core.Metrics[i]
		if s.Shard == nil || len(s.Shard.Parts) == 0 {
			t.Fatalf("series %d has no shard", i)
		}
		for _, p := range s.Shard.Parts {
			// A summary's own script is named by its part's id, a pack by
			// the SHA-256 of the payloads it holds.
			name, isJS := strings.CutSuffix(strings.TrimPrefix(p.Path, "detail/"), ".js")
			if p.Pack && (len(name) != 64 || strings.Trim(name, "0123456789abcdef") != "") || !p.Pack && name != p.ID || !isJS || !listed[p.Path] {
				t.Fatalf("series %d part %s is not a content-named file in the manifest", i, p.Path)
			}
			scripts[p.Path] = true
		}
		if payload += s.Shard.Bytes; !s.Shard.Parts[0].Pack {
			alone += len(s.Shard.Parts)
		}
	}
	// Summaries share pack scripts (report format 8): the scripts are
	// bounded by the packs' bytes and parts, not one a series.
	bound := alone + (payload+report.MetricPackBytes-1)/report.MetricPackBytes + (len(core.Metrics)+report.PackParts-1)/report.PackParts
	if len(scripts) > bound || len(scripts) >= len(core.Metrics)/4 {
		t.Fatalf("%d scripts hold %d series' summaries (%d bytes), want at most %d", len(scripts), len(core.Metrics), payload, bound)
	}
	for i := range core.Metrics {
		s := &core.Metrics[i]
		raw, err := report.ReadMetricShard(dir, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != s.Shard.DecodedBytes {
			t.Fatalf("series %d: %d bytes, descriptor says %d", i, len(raw), s.Shard.DecodedBytes)
		}
	}
	// Every series answers once its shard is loaded; without any loaded,
	// the engine names what it needs.
	code, stdout, stderr := dsight(t, "query", out, "metrics", "--limit", "1000")
	if code != 0 {
		t.Fatal(stderr)
	}
	var ans metricAnswer
	if err := json.Unmarshal([]byte(stdout), &ans); err != nil || ans.Total != len(core.Metrics) || len(ans.Items) != len(core.Metrics) {
		t.Fatalf("all-series answer: %v (%d of %d)", err, len(ans.Items), len(core.Metrics))
	}
}
