package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// Metric tables of the core shard. They hold the catalog and each series'
// metadata and shard descriptor as columns; the samples live in per-series
// detail shards, so the core stays small whatever the capture size.
//
// Series are columns, not a JSON record each: a capture of 100k series
// repeats its families' units, groups and descriptions in every record
// (~1.5 KB of JSON a series, 158 MB in all), and decoding those records
// took 11.7 s under wasm. Columns store each distinct string once and
// decode without parsing. Lists (labels, source ids, shard parts) are child
// tables keyed by series id, in series order.
const (
	TableMetricFamilies   = "metric_families"
	TableMetricSeries     = "metric_series"
	TableMetricLabels     = "metric_series_labels"
	TableMetricSources    = "metric_series_sources"
	TableMetricShardParts = "metric_series_shard_parts"
)

// familyRecord is how the core stores a metric family: one JSON object
// per family, with these keys. It holds strings, integers and booleans,
// which json.Marshal always encodes.
type familyRecord struct {
	Name            string   `json:"name"`
	Component       string   `json:"component"`
	Group           string   `json:"group"`
	GroupOrder      int      `json:"group_order"`
	Title           string   `json:"title"`
	Unit            string   `json:"unit"`
	RateUnit        string   `json:"rate_unit"`
	Counter         bool     `json:"counter"`
	Description     string   `json:"description"`
	Quality         string   `json:"quality"`
	Featured        bool     `json:"featured"`
	Order           int      `json:"order"`
	ValueKind       string   `json:"value_kind"`
	ObservationUnit string   `json:"observation_unit,omitempty"`
	SeriesCount     int      `json:"series_count"`
	Samples         int64    `json:"samples"`
	Endpoints       []string `json:"endpoints"`
	SourceKind      string   `json:"source_kind,omitempty"`
	Generator       string   `json:"generator,omitempty"`
	Temporal        string   `json:"temporal,omitempty"`
	Derived         bool     `json:"derived,omitempty"`
	StackBy         []string `json:"stack_by,omitempty"`

	// StackWithin is model.MetricFamily's, as stack_by is.
	StackWithin map[string]string `json:"stack_within,omitempty"`
}

// encodeMetrics lays out the metric tables.
func encodeMetrics(d *model.Dataset) []shard.Table {
	fams := make([]string, len(d.MetricFamilies))
	for i, f := range d.MetricFamilies {
		b, _ := json.Marshal(familyRecord(f))
		fams[i] = string(b)
	}
	n := len(fams)
	famT := shard.Table{Name: TableMetricFamilies, Rows: n, Columns: []shard.Column{
		strCol("name", n, func(i int) string { return d.MetricFamilies[i].Name }),
		strCol("record", n, func(i int) string { return fams[i] }),
	}}
	ms := d.Metrics
	n = len(ms)
	str := func(name string, get func(m *model.MetricSeries) string) shard.Column {
		return strCol(name, n, func(i int) string { return get(&ms[i]) })
	}
	opt := func(name string, get func(m *model.MetricSeries) *string) shard.Column {
		return optStrCol(name, n, func(i int) *string { return get(&ms[i]) })
	}
	num := func(name string, get func(m *model.MetricSeries) int64) shard.Column {
		return intCol(name, n, func(i int) int64 { return get(&ms[i]) })
	}
	shardNum := func(name string, get func(s *model.MetricShard) int) shard.Column {
		return intCol(name, n, func(i int) int64 {
			if s := ms[i].Shard; s != nil {
				return int64(get(s))
			}
			return 0
		})
	}
	seriesT := shard.Table{Name: TableMetricSeries, Rows: n, Columns: []shard.Column{
		num("id", func(m *model.MetricSeries) int64 { return int64(m.ID) }),
		str("name", func(m *model.MetricSeries) string { return m.Name }),
		str("label", func(m *model.MetricSeries) string { return m.Label }),
		str("unit", func(m *model.MetricSeries) string { return m.Unit }),
		str("value_kind", func(m *model.MetricSeries) string { return m.ValueKind }),
		str("component", func(m *model.MetricSeries) string { return m.Component }),
		str("group", func(m *model.MetricSeries) string { return m.Group }),
		str("description", func(m *model.MetricSeries) string { return m.Description }),
		str("raw_name", func(m *model.MetricSeries) string { return m.RawName }),
		str("endpoint", func(m *model.MetricSeries) string { return m.Endpoint }),
		opt("host", func(m *model.MetricSeries) *string { return m.Host }),
		opt("gpu", func(m *model.MetricSeries) *string { return m.GPU }),
		opt("worker", func(m *model.MetricSeries) *string { return m.Worker }),
		opt("rank", func(m *model.MetricSeries) *string { return m.Rank }),
		opt("rank_kind", func(m *model.MetricSeries) *string { return m.RankKind }),
		opt("worker_process", func(m *model.MetricSeries) *string { return m.WorkerProcess }),
		str("source_kind", func(m *model.MetricSeries) string { return m.SourceKind }),
		str("generator", func(m *model.MetricSeries) string { return m.Generator }),
		str("temporal", func(m *model.MetricSeries) string { return m.Temporal }),
		optFloatCol("time_resolution_s", n, func(i int) *float64 { return ms[i].TimeResolutionS }),
		// A reference is present exactly when ref_name is.
		opt("ref_name", func(m *model.MetricSeries) *string {
			if m.Reference == nil {
				return nil
			}
			return &m.Reference.Name
		}),
		str("ref_label", func(m *model.MetricSeries) string {
			if m.Reference == nil {
				return ""
			}
			return m.Reference.Label
		}),
		optIntCol("ref_series", n, func(i int) *int64 {
			if r := ms[i].Reference; r != nil && r.SeriesID != nil {
				v := int64(*r.SeriesID)
				return &v
			}
			return nil
		}),
		num("samples", func(m *model.MetricSeries) int64 { return m.Samples }),
		num("rows", func(m *model.MetricSeries) int64 { return m.Rows }),
		// A shard descriptor is present exactly when shard_id is.
		opt("shard_id", func(m *model.MetricSeries) *string {
			if m.Shard == nil {
				return nil
			}
			return &m.Shard.ID
		}),
		shardNum("shard_bytes", func(s *model.MetricShard) int { return s.Bytes }),
		shardNum("shard_decoded_bytes", func(s *model.MetricShard) int { return s.DecodedBytes }),
		shardNum("shard_chunks", func(s *model.MetricShard) int { return s.Chunks }),
		intCol("shard_first_ns", n, func(i int) int64 {
			if s := ms[i].Shard; s != nil {
				return s.FirstNS
			}
			return 0
		}),
		intCol("shard_last_ns", n, func(i int) int64 {
			if s := ms[i].Shard; s != nil {
				return s.LastNS
			}
			return 0
		}),
	}}
	// Sized first: for 100k series the label rows alone are millions, and
	// growing them by appending kept up to twice their size in slack.
	var nLabels, nSources, nParts int
	for i := range ms {
		nLabels += len(ms[i].Labels)
		nSources += len(ms[i].SourceIDs)
		if sh := ms[i].Shard; sh != nil {
			nParts += len(sh.Parts)
		}
	}
	labels, sources, parts := newChildRows(nLabels, true, false), newChildRows(nSources, false, true), newChildRows(nParts, true, true)
	parts.flags = make([]bool, 0, nParts)
	for i := range ms {
		for _, l := range ms[i].Labels {
			labels.add(i, l.Key, l.Value, 0)
		}
		for _, s := range ms[i].SourceIDs {
			sources.add(i, "", "", int64(s))
		}
		if sh := ms[i].Shard; sh != nil {
			for _, p := range sh.Parts {
				parts.add(i, p.ID, p.Path, int64(p.Bytes))
				parts.flags = append(parts.flags, p.Pack)
			}
		}
	}
	return []shard.Table{famT, seriesT,
		labels.table(TableMetricLabels, "key", "value", ""),
		sources.table(TableMetricSources, "", "", "source"),
		parts.withFlags(parts.table(TableMetricShardParts, "id", "path", "bytes"), "pack"),
	}
}

// childRows are the rows of a list table: up to two strings, a number and
// a flag per row, each row tagged with its series' row. Its slices become
// the table's columns as they are.
type childRows struct {
	series []int64
	a, b   []string
	num    []int64
	flags  []bool // appended by the caller beside add, when kept
}

// newChildRows makes room for n rows, with the two strings when strs and
// the number when num.
func newChildRows(n int, strs, num bool) *childRows {
	c := &childRows{series: make([]int64, 0, n)}
	if strs {
		c.a, c.b = make([]string, 0, n), make([]string, 0, n)
	}
	if num {
		c.num = make([]int64, 0, n)
	}
	return c
}

func (c *childRows) add(series int, a, b string, num int64) {
	c.series = append(c.series, int64(series))
	if c.a != nil {
		c.a, c.b = append(c.a, a), append(c.b, b)
	}
	if c.num != nil {
		c.num = append(c.num, num)
	}
}

// table lays the rows out; an empty column name leaves that field out.
func (c *childRows) table(name, a, b, num string) shard.Table {
	cols := []shard.Column{{Name: "series", Type: shard.Int64, Ints: c.series}}
	if a != "" {
		cols = append(cols, shard.Column{Name: a, Type: shard.String, Strings: c.a})
	}
	if b != "" {
		cols = append(cols, shard.Column{Name: b, Type: shard.String, Strings: c.b})
	}
	if num != "" {
		cols = append(cols, shard.Column{Name: num, Type: shard.Int64, Ints: c.num})
	}
	return shard.Table{Name: name, Rows: len(c.series), Columns: cols}
}

// withFlags adds the rows' flags to t as the Bool column name.
func (c *childRows) withFlags(t shard.Table, name string) shard.Table {
	t.Columns = append(t.Columns, shard.Column{Name: name, Type: shard.Bool, Bools: c.flags})
	return t
}

// metrics decodes the metric tables; absent tables mean a report without
// metrics.
func (o *opener) metrics(c *Core) {
	if t, ok := o.s.Table(TableMetricFamilies); ok {
		recs := o.strs(t, "record")
		for i := range recs {
			var f familyRecord
			if err := json.Unmarshal([]byte(recs[i]), &f); err != nil && o.err == nil {
				o.err = fmt.Errorf("metric family %d: %w", i, err)
			}
			c.MetricFamilies = append(c.MetricFamilies, model.MetricFamily(f))
		}
	}
	t, ok := o.s.Table(TableMetricSeries)
	if !ok {
		return
	}
	n := t.Rows
	ids := o.ints(t, "id")
	name, label, unit := o.strs(t, "name"), o.strs(t, "label"), o.strs(t, "unit")
	valueKind, component, group := o.strs(t, "value_kind"), o.strs(t, "component"), o.strs(t, "group")
	description, rawName, endpoint := o.strs(t, "description"), o.strs(t, "raw_name"), o.strs(t, "endpoint")
	host, gpu, worker := o.optStrs(t, "host"), o.optStrs(t, "gpu"), o.optStrs(t, "worker")
	rank, rankKind, process := o.optStrs(t, "rank"), o.optStrs(t, "rank_kind"), o.optStrs(t, "worker_process")
	sourceKind, generator, temporal := o.strs(t, "source_kind"), o.strs(t, "generator"), o.strs(t, "temporal")
	resolution := o.optFloats(t, "time_resolution_s")
	refName, refLabel, refSeries := o.optStrs(t, "ref_name"), o.strs(t, "ref_label"), o.optInts(t, "ref_series")
	samples, rows := o.ints(t, "samples"), o.ints(t, "rows")
	shardID := o.optStrs(t, "shard_id")
	shardBytes, shardDecoded, shardChunks := o.ints(t, "shard_bytes"), o.ints(t, "shard_decoded_bytes"), o.ints(t, "shard_chunks")
	shardFirst, shardLast := o.ints(t, "shard_first_ns"), o.ints(t, "shard_last_ns")
	labels := o.children(TableMetricLabels, n, "key", "value", "")
	sources := o.children(TableMetricSources, n, "", "", "source")
	parts := o.children(TableMetricShardParts, n, "id", "path", "bytes")
	var packed []bool // report format 8: a part in a pack script (model.ShardPart.Pack)
	if t := o.table(TableMetricShardParts); t != nil {
		packed = o.bools(t, "pack")
	}
	if o.err != nil || n == 0 {
		return
	}
	c.Metrics = make([]model.MetricSeries, n)
	for i := range n {
		if ids[i] != int64(i) {
			o.err = fmt.Errorf("metric series row %d has id %d", i, ids[i])
			return
		}
		m := &c.Metrics[i]
		*m = model.MetricSeries{
			ID: i, Name: name[i], Label: label[i], Unit: unit[i], ValueKind: valueKind[i], Component: component[i],
			Group: group[i], Description: description[i], RawName: rawName[i], Endpoint: endpoint[i],
			Host: host.At(i), GPU: gpu.At(i), Worker: worker.At(i), Rank: rank.At(i), RankKind: rankKind.At(i), WorkerProcess: process.At(i),
			SourceKind: sourceKind[i], Generator: generator[i], Temporal: temporal[i], TimeResolutionS: resolution.At(i),
			Samples: samples[i], Rows: rows[i], Derived: sourceKind[i] == model.SourceDerived,
			Labels: make([]model.MetricLabel, 0, labels.count(i)), SourceIDs: make([]int, 0, sources.count(i)),
		}
		for k := labels.start[i]; k < labels.start[i+1]; k++ {
			m.Labels = append(m.Labels, model.MetricLabel{Key: labels.a[k], Value: labels.b[k]})
		}
		for k := sources.start[i]; k < sources.start[i+1]; k++ {
			m.SourceIDs = append(m.SourceIDs, int(sources.num[k]))
		}
		if p := refName.At(i); p != nil {
			m.Reference = &model.MetricReference{Name: *p, Label: refLabel[i]}
			if s := refSeries.At(i); s != nil {
				id := int(*s)
				m.Reference.SeriesID = &id
			}
		}
		if p := shardID.At(i); p != nil {
			m.Shard = &model.MetricShard{
				Shard:        model.Shard{ID: *p, Bytes: int(shardBytes[i]), DecodedBytes: int(shardDecoded[i])},
				MetricBounds: model.MetricBounds{Chunks: int(shardChunks[i]), FirstNS: shardFirst[i], LastNS: shardLast[i]},
			}
			for k := parts.start[i]; k < parts.start[i+1]; k++ {
				m.Shard.Parts = append(m.Shard.Parts, model.ShardPart{ID: parts.a[k], Path: parts.b[k], Bytes: int(parts.num[k]), Pack: k < len(packed) && packed[k]})
			}
		}
	}
}

// children is a decoded list table: the rows of series i are
// [start[i], start[i+1]).
type children struct {
	start []int
	a, b  []string
	num   []int64
}

func (c children) count(i int) int { return c.start[i+1] - c.start[i] }

// children decodes a list table of series rows, which must be tagged with
// series rows in ascending order.
func (o *opener) children(name string, series int, a, b, num string) children {
	c := children{start: make([]int, series+1)}
	t := o.table(name)
	if t == nil {
		return c
	}
	tags := o.ints(t, "series")
	if a != "" {
		c.a = o.strs(t, a)
	}
	if b != "" {
		c.b = o.strs(t, b)
	}
	if num != "" {
		c.num = o.ints(t, num)
	}
	for k, s := range tags {
		if s < 0 || s >= int64(series) || k > 0 && s < tags[k-1] {
			if o.err == nil {
				o.err = fmt.Errorf("table %s: row %d names series %d out of order", name, k, s)
			}
			return children{start: make([]int, series+1)}
		}
		c.start[s+1]++
	}
	for i := range series {
		c.start[i+1] += c.start[i]
	}
	return c
}
