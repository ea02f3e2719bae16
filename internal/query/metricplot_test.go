package query

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
)

func TestCoincidentMedians(t *testing.T) {
	nan := math.NaN()
	type row struct {
		t     int64
		v     float64
		valid bool
	}
	for _, tc := range []struct {
		name   string
		rows   []row
		times  []float64
		values []float64 // NaN: a gap
		counts []float64
	}{
		{"single events stay as recorded", []row{{1e9, 4, true}, {2e9, 5, true}}, []float64{1, 2}, []float64{4, 5}, []float64{1, 1}},
		{"odd count: the middle value", []row{{1e9, 9, true}, {1e9, 1, true}, {1e9, 5, true}}, []float64{1}, []float64{5}, []float64{3}},
		{"even count: the mean of the two middle values", []row{{1e9, 8, true}, {1e9, 1, true}, {1e9, 2, true}, {1e9, 100, true}}, []float64{1}, []float64{5}, []float64{4}},
		{"nulls excluded from value and count", []row{{1e9, 0, false}, {1e9, 3, true}, {1e9, 0, false}, {1e9, 7, true}, {1e9, 4, true}}, []float64{1}, []float64{4}, []float64{3}},
		{"nulls excluded: even after dropping them", []row{{1e9, 2, true}, {1e9, 0, false}, {1e9, 6, true}}, []float64{1}, []float64{4}, []float64{2}},
		{"only nulls: a gap counting none", []row{{1e9, 0, false}, {1e9, 0, false}, {2e9, 1, true}}, []float64{1, 2}, []float64{nan, 1}, []float64{0, 1}},
		{"non-finite values are not events", []row{{1e9, math.Inf(1), true}, {1e9, 2, true}}, []float64{1}, []float64{2}, []float64{1}},
		{"groups follow time order", []row{{1e9, 1, true}, {1e9, 3, true}, {3e9, 10, true}, {3e9, 20, true}, {3e9, 30, true}}, []float64{1, 3}, []float64{2, 20}, []float64{2, 3}},
		{"no rows", nil, nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ts []int64
			var vs []float64
			var ok []bool
			for _, r := range tc.rows {
				ts, vs, ok = append(ts, r.t), append(vs, r.v), append(ok, r.valid)
			}
			gotT, gotV, gotN := coincidentMedians(ts, vs, ok)
			if !sameFloats(gotT, tc.times) || !sameFloats(gotV, tc.values) || !sameFloats(gotN, tc.counts) {
				t.Fatalf("got times %v values %v counts %v; want %v %v %v", gotT, gotV, gotN, tc.times, tc.values, tc.counts)
			}
		})
	}
}

// sameFloats compares with NaN equal to NaN.
func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] && !(math.IsNaN(a[k]) && math.IsNaN(b[k])) {
			return false
		}
	}
	return true
}

// eventEngine holds one event series: three events at 1 s (values 9, 1,
// 5), one null and two events at 2 s (4, 6), one event at 3 s (7).
func eventEngine(t testing.TB) *Engine {
	t.Helper()
	d := fixture()
	b, err := pyramid.NewBuilder(pyramid.Options{Temporal: pyramid.Event})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		t    int64
		v    float64
		null bool
	}{{1e9, 9, false}, {1e9, 1, false}, {1e9, 5, false}, {2e9, 0, true}, {2e9, 4, false}, {2e9, 6, false}, {3e9, 7, false}} {
		if err := b.Add(p.t, p.v, p.null); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := b.Finish().EncodeShard()
	if err != nil {
		t.Fatal(err)
	}
	d.MetricFamilies = []model.MetricFamily{{Name: "ev", SeriesCount: 1, Samples: 6}}
	d.Metrics = []model.MetricSeries{{ID: 0, Name: "ev", Temporal: "event", Samples: 6, Shard: &model.MetricShard{Shard: model.Shard{ID: "events"}}}}
	e, err := FromDataset(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.LoadShard("events", raw); err != nil {
		t.Fatal(err)
	}
	return e
}

// decodedPlot reads Plot.Encode's layout back, as the page does.
type decodedPlot struct {
	from, to float64
	series   []decodedSeries
}

type decodedSeries struct {
	fields                [PlotSeriesFields]float64
	times, values, counts []float64
	carried               []float64 // with PlotCarriedConflict
}

func decodePlot(t *testing.T, raw []byte) decodedPlot {
	t.Helper()
	if len(raw)%8 != 0 {
		t.Fatalf("%d bytes", len(raw))
	}
	f := make([]float64, len(raw)/8)
	for k := range f {
		f[k] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*k:]))
	}
	if f[0] != plotVersion {
		t.Fatalf("version %v", f[0])
	}
	out := decodedPlot{from: f[2], to: f[3]}
	at := PlotHeaderFields
	for range int(f[1]) {
		var s decodedSeries
		copy(s.fields[:], f[at:at+PlotSeriesFields])
		n := int(s.fields[25])
		at += PlotSeriesFields
		s.times, s.values = f[at:at+n], f[at+n:at+2*n]
		at += 2 * n
		if int(s.fields[2])&PlotEventMedians != 0 {
			s.counts = f[at : at+n]
			at += n
		}
		if int(s.fields[2])&PlotCarriedConflict != 0 {
			m := int(f[at])
			s.carried = f[at+1 : at+1+m]
			at += 1 + m
		}
		out.series = append(out.series, s)
	}
	if at != len(f) {
		t.Fatalf("decoded %d of %d float64s", at, len(f))
	}
	return out
}

func TestMetricPlotEvents(t *testing.T) {
	e := eventEngine(t)
	raw, env := e.HandlePlot([]byte(`{"pixels":100,"series":[0]}`))
	if env != nil {
		t.Fatalf("%s", env)
	}
	p := decodePlot(t, raw)
	s := p.series[0]
	if flags := int(s.fields[2]); flags&PlotEventMedians == 0 || flags&PlotExact == 0 {
		t.Fatalf("flags %b", flags)
	}
	// Coincident events are drawn as their median, labelled with how many.
	if !sameFloats(s.times, []float64{1, 2, 3}) || !sameFloats(s.values, []float64{5, 5, 7}) || !sameFloats(s.counts, []float64{3, 2, 1}) {
		t.Fatalf("times %v values %v counts %v", s.times, s.values, s.counts)
	}
	// Statistics stay over every event; the last value is the last tick's.
	if rows, samples, lo, hi, last, lastCount := s.fields[4], s.fields[5], s.fields[6], s.fields[7], s.fields[9], s.fields[12]; rows != 7 || samples != 6 || lo != 1 || hi != 9 || last != 7 || lastCount != 1 {
		t.Fatalf("rows %v samples %v min %v max %v last %v (%v events)", rows, samples, lo, hi, last, lastCount)
	}
	// The last tick's median, when several events share it.
	raw, _ = e.HandlePlot([]byte(`{"from":0,"to":2.5,"pixels":100,"series":[0]}`))
	s = decodePlot(t, raw).series[0]
	if last, lastCount, lastTime := s.fields[9], s.fields[12], s.fields[11]; last != 5 || lastCount != 2 || lastTime != 2 {
		t.Fatalf("last %v of %v events at %v", last, lastCount, lastTime)
	}
	// The query answer still lists every raw event, nulls included.
	name := "ev"
	res, msg := askMetric(t, e, "metrics", Args{Name: &name, Points: true})
	if msg != "" {
		t.Fatal(msg)
	}
	var got struct {
		Items []struct {
			Points [][2]any `json:"points"`
		} `json:"items"`
	}
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatal(err)
	}
	want := `[[1,9],[1,1],[1,5],[2,null],[2,4],[2,6],[3,7]]`
	if pts, _ := json.Marshal(got.Items[0].Points); string(pts) != want {
		t.Fatalf("metrics points %s, want %s", pts, want)
	}
}

// A plot names the shards it needs until they are loaded, answers only the
// series asked for, and keeps the plot's exact-extremes property: every
// point is a recorded row and the range's min and max are among them.
func TestMetricPlot(t *testing.T) {
	e, payloads := metricEngine(t)
	_, env := e.HandlePlot([]byte(`{"pixels":100,"series":[1]}`))
	var need struct {
		OK     bool        `json:"ok"`
		Error  string      `json:"error"`
		Shards []ShardNeed `json:"shards"`
	}
	if err := json.Unmarshal(env, &need); err != nil || need.OK || len(need.Shards) != 1 || need.Shards[0].ID != "setting" {
		t.Fatalf("%v %s", err, env)
	}
	if _, err := e.MetricPlot(PlotRequest{Pixels: 100, Series: []int{0}}); !errors.As(err, new(*ShardsNeededError)) {
		t.Fatalf("error %v", err)
	}
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []struct{ req, msg string }{
		{`{"pixels":0,"series":[0]}`, "pixels must be"},
		{`{"pixels":100,"series":[7]}`, "unknown metric series 7"},
		{`{"pixels":100,"series":[0],"from":5,"to":1}`, "Range must satisfy"},
		{`{"pixels":100,"series":[0],"extra":1}`, "bad plot request"},
	} {
		if _, env := e.HandlePlot([]byte(bad.req)); !strings.Contains(string(env), bad.msg) {
			t.Errorf("%s: %s", bad.req, env)
		}
	}
	dur := fixture().Meta.DurationNS
	rows := map[[2]float64]bool{}
	for k := range 1500 {
		rows[[2]float64{seconds(int64(k) * (dur / 1500)), float64(k % 7)}] = true
	}
	for _, pixels := range []int{50, 200, 2000} {
		raw, env := e.HandlePlot([]byte(`{"pixels":` + itoa(pixels) + `,"series":[0]}`))
		if env != nil {
			t.Fatalf("%s", env)
		}
		p := decodePlot(t, raw)
		if len(p.series) != 1 || p.series[0].fields[0] != 0 {
			t.Fatalf("pixels %d: %d series", pixels, len(p.series))
		}
		s := p.series[0]
		exact := int(s.fields[2])&PlotExact != 0
		if exact != (pixels == 2000) || exact != math.IsNaN(s.fields[3]) || s.fields[4] != 1500 {
			t.Fatalf("pixels %d: exact %v, bucket %v, rows %v", pixels, exact, s.fields[3], s.fields[4])
		}
		sawMin, sawMax := false, false
		for k := range s.times {
			if !rows[[2]float64{s.times[k], s.values[k]}] {
				t.Fatalf("pixels %d: point (%v, %v) is not a recorded row", pixels, s.times[k], s.values[k])
			}
			sawMin, sawMax = sawMin || s.values[k] == s.fields[6], sawMax || s.values[k] == s.fields[7]
		}
		if !sawMin || !sawMax {
			t.Fatalf("pixels %d: the range's min or max is missing", pixels)
		}
	}
	// A setting carries the value held before the range.
	raw, _ := e.HandlePlot([]byte(`{"from":1,"to":2,"pixels":100,"series":[1]}`))
	s := decodePlot(t, raw).series[0]
	if int(s.fields[2])&PlotCarried == 0 || s.fields[13] != -5 || s.fields[14] != 8 || s.fields[1] != float64(pyramid.Setting) || len(s.times) != 0 {
		t.Fatalf("setting: %v", s.fields)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// FuzzHandlePlot: any request answers with a plot or an envelope, never a
// panic, and a plot always decodes whole.
func FuzzHandlePlot(f *testing.F) {
	e := eventEngine(f)
	for _, s := range []string{`{"pixels":100,"series":[0]}`, `{"from":0,"to":2.5,"pixels":1,"series":[0,0]}`, `{"pixels":8193,"series":[0]}`, `{"series":[-1]}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		defer fuzzlimit.Start(t)()
		raw, env := e.HandlePlot(req)
		if (raw == nil) == (env == nil) {
			t.Fatalf("plot %d bytes and envelope %q", len(raw), env)
		}
		if raw != nil {
			decodePlot(t, raw)
		}
	})
}

func BenchmarkMetricPlot(b *testing.B) {
	e, payloads := metricEngine(b)
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			b.Fatal(err)
		}
	}
	req := []byte(`{"pixels":600,"series":[0,1]}`)
	var size int
	for b.Loop() {
		raw, env := e.HandlePlot(req)
		if env != nil {
			b.Fatalf("%s", env)
		}
		size = len(raw)
	}
	b.ReportMetric(float64(size), "bytes/answer")
}

// BenchmarkMetricPlotFamily plots twelve series of 17,000 one-second rows
// (a GPU family of the generated 100M-sample capture) over the whole run
// and over a tenth of it, for a chart 1,300 pixels wide.
func BenchmarkMetricPlotFamily(b *testing.B) {
	d := fixture()
	const series, rows = 12, 17000
	d.Meta.DurationNS = rows * 1e9
	d.MetricFamilies = []model.MetricFamily{{Name: "gpu", SeriesCount: series, Samples: series * rows}}
	payloads := map[string][]byte{}
	for i := range series {
		var ts []int64
		var vs []float64
		v := 50.0
		for k := range rows {
			v += float64((k*7919+i*104729)%21-10) / 4
			ts, vs = append(ts, int64(k)*1e9), append(vs, v)
		}
		id := "s" + itoa(i)
		payloads[id] = metricPayload(b, pyramid.Sample, ts, vs)
		d.Metrics = append(d.Metrics, model.MetricSeries{ID: i, Name: "gpu", Temporal: "sample", Samples: rows, Shard: &model.MetricShard{Shard: model.Shard{ID: id}}})
	}
	e, err := FromDataset(d)
	if err != nil {
		b.Fatal(err)
	}
	for id, raw := range payloads {
		if err := e.LoadShard(id, raw); err != nil {
			b.Fatal(err)
		}
	}
	ids := make([]int, series)
	for i := range ids {
		ids[i] = i
	}
	for _, c := range []struct {
		name     string
		from, to float64
	}{{"whole", 0, rows}, {"tenth", rows * 0.45, rows * 0.55}} {
		b.Run(c.name, func(b *testing.B) {
			req, _ := json.Marshal(PlotRequest{From: &c.from, To: &c.to, Pixels: 650, Series: ids})
			var buf []byte
			for b.Loop() {
				raw, env := e.AppendPlot(buf[:0], req)
				if env != nil {
					b.Fatalf("%s", env)
				}
				buf = raw
			}
			b.ReportMetric(float64(len(buf)), "bytes/answer")
		})
	}
}
