package metrics

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/tachometer"
)

// captureSink keeps each series' points as (time, value) pairs until the
// read ends: the reader delivers file order, which is time order except
// where an Arrow tail overlaps its Parquet, so each series is sorted (stably,
// keeping file then row order on ties) only when it arrived out of order.
type captureSink struct {
	infos  []*tachometer.SeriesInfo
	times  [][]int64
	values [][]float64
	sorted []bool
}

func (s *captureSink) Series(info *tachometer.SeriesInfo) error {
	s.infos = append(s.infos, info)
	s.times = append(s.times, nil)
	s.values = append(s.values, nil)
	s.sorted = append(s.sorted, true)
	return nil
}

func (s *captureSink) Points(ps []tachometer.Point) error {
	for _, p := range ps {
		i := p.Series
		if i < 0 || int(i) >= len(s.infos) {
			return fmt.Errorf("capture point names series %d of %d", i, len(s.infos))
		}
		if n := len(s.times[i]); n > 0 && s.times[i][n-1] > p.TimeNS {
			s.sorted[i] = false
		}
		s.times[i] = append(s.times[i], p.TimeNS)
		s.values[i] = append(s.values[i], p.Value)
	}
	return nil
}

// byTime sorts one series' pairs by time, stably.
type byTime struct {
	t []int64
	v []float64
}

func (b byTime) Len() int           { return len(b.t) }
func (b byTime) Less(i, j int) bool { return b.t[i] < b.t[j] }
func (b byTime) Swap(i, j int) {
	b.t[i], b.t[j] = b.t[j], b.t[i]
	b.v[i], b.v[j] = b.v[j], b.v[i]
}

func readCapture(opt Options, res *Result) ([]model.MetricFamily, []*built, error) {
	root, explicit := filepath.Join(opt.LogDir, filepath.FromSlash(tachometer.DefaultRoot)), false
	if opt.Capture != "" {
		abs, err := filepath.Abs(opt.Capture)
		if err != nil {
			return nil, nil, err
		}
		root, explicit = abs, true
	}
	c, err := tachometer.Discover(root, explicit)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics: %w", err)
	}
	if len(c.Files) == 0 {
		return nil, nil, nil
	}
	sourceIDs := make([]int, len(c.Files))
	for i, f := range c.Files {
		if sourceIDs[i], _, err = opt.Register(f.Path, KindCapture); err != nil {
			return nil, nil, err
		}
	}
	sink := &captureSink{}
	r, err := tachometer.Read(c, tachometer.Options{Window: &tachometer.Window{StartNS: opt.OriginNS, EndNS: opt.LastNS}}, sink)
	if err != nil {
		return nil, nil, err
	}
	res.Warnings = append(res.Warnings, c.Warnings...)
	res.Warnings = append(res.Warnings, r.Warnings...)
	for k, v := range map[string]int64{
		"metric_rows_scanned": r.Audit.RowsScanned, "out_of_window_metric_rows": r.Audit.OutOfWindow,
		"nonfinite_metric_points": r.Audit.NonFinite, "duplicate_metric_points": r.Audit.Duplicates,
		"conflicting_metric_samples": r.Audit.ConflictingSamples, "metric_points": r.Audit.Points,
	} {
		if v != 0 {
			res.Audit[k] += v
		}
	}
	desc := map[string]tachometer.Description{}
	var families []model.MetricFamily
	for _, f := range r.Families {
		d := f.Description
		desc[f.Name] = d
		families = append(families, model.MetricFamily{
			Name: f.Name, Component: d.Component, Group: d.Group, GroupOrder: d.GroupOrder, Title: d.Title,
			Unit: d.Unit, RateUnit: d.RateUnit, Counter: d.Counter, Description: d.Description, Quality: d.Quality,
			Featured: d.Featured, Order: d.Order, ValueKind: string(d.ValueKind), ObservationUnit: d.ObservationUnit,
			SeriesCount: f.SeriesCount, Samples: f.Samples, Endpoints: append([]string{}, f.Endpoints...),
		})
	}
	distinct := distinguishingLabels(sink.infos)
	out := make([]*built, 0, len(sink.infos))
	for i, info := range sink.infos {
		t, v := sink.times[i], sink.values[i]
		if !sink.sorted[i] {
			sort.Stable(byTime{t, v})
		}
		b, err := pyramid.NewBuilder(pyramid.Options{Temporal: pyramid.Sample})
		if err != nil {
			return nil, nil, err
		}
		for k := range t {
			if err := b.Add(t[k]-opt.OriginNS, v[k], false); err != nil {
				return nil, nil, fmt.Errorf("capture series %s: %w", info.RawName, err)
			}
		}
		sink.times[i], sink.values[i] = nil, nil // let the pairs go as soon as they are summarized
		p := b.Finish()
		d := desc[info.Name]
		labels := make([]model.MetricLabel, len(info.Labels))
		for k, l := range info.Labels {
			labels[k] = model.MetricLabel{Key: l.Key, Value: l.Value}
		}
		var sources []int
		if i < len(r.Series) {
			for _, s := range r.Series[i].Sources {
				if int(s) < len(sourceIDs) {
					sources = append(sources, sourceIDs[s])
				}
			}
		}
		meta := model.MetricSeries{
			Name: info.Name, Label: captureLabel(d.Title, info, distinct), Unit: d.Unit, ValueKind: string(d.ValueKind),
			Component: d.Component, Group: d.Group, Description: d.Description, RawName: info.RawName,
			Endpoint: info.Endpoint, Host: strPtr(info.Host), GPU: strPtr(info.GPU), Worker: strPtr(info.Worker),
			Rank: strPtr(info.Rank), RankKind: strPtr(info.RankKind), WorkerProcess: strPtr(info.WorkerProcess),
			Labels: labels, Temporal: "sample", SourceIDs: nonNilInts(sources), Samples: int64(len(t)), Rows: p.Rows(),
		}
		sb := &built{meta: meta, p: p, ref: -1, sortKey: seriesKey(meta)}
		if err := sb.encode(); err != nil { // no capture series is another's limit
			return nil, nil, err
		}
		out = append(out, sb)
	}
	return families, out, nil
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// distinguishingLabels lists, per family, the inline label keys whose
// values differ between series that share a worker (or host) and GPU: the
// labels a legend needs to tell them apart. Labels that only restate the
// device (UUID, bus id, driver) stay in the metadata.
func distinguishingLabels(infos []*tachometer.SeriesInfo) map[string]map[string]bool {
	type scope struct{ name, who, gpu string }
	first := map[scope]map[string]string{}
	out := map[string]map[string]bool{}
	for _, info := range infos {
		sc := scope{info.Name, info.Worker + "\x00" + info.Host, info.GPU}
		vals := map[string]string{}
		for _, l := range info.Labels {
			if strings.HasPrefix(l.Key, "metric.") {
				vals[l.Key] = l.Value
			}
		}
		prev, seen := first[sc]
		if !seen {
			first[sc] = vals
			continue
		}
		for k, v := range vals {
			if pv, ok := prev[k]; !ok || pv != v {
				if out[info.Name] == nil {
					out[info.Name] = map[string]bool{}
				}
				out[info.Name][k] = true
			}
		}
		for k := range prev {
			if _, ok := vals[k]; !ok {
				if out[info.Name] == nil {
					out[info.Name] = map[string]bool{}
				}
				out[info.Name][k] = true
			}
		}
	}
	return out
}

func captureLabel(title string, info *tachometer.SeriesInfo, distinct map[string]map[string]bool) string {
	parts := []string{title}
	// A worker can span several nodes, so the host stays in the label.
	parts = append(parts, info.Worker, info.Host)
	if info.GPU != "" {
		parts = append(parts, "GPU "+info.GPU)
	}
	for _, l := range info.Labels {
		if distinct[info.Name][l.Key] {
			parts = append(parts, strings.TrimPrefix(l.Key, "metric.")+"="+l.Value)
		}
	}
	return joinNonEmpty(parts)
}
