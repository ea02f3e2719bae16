package query

import (
	"fmt"
	"math"
	"strings"

	"github.com/dsight/dsight/internal/pyramid"
)

// MaxMetricPoints bounds the points one series returns.
const MaxMetricPoints = 1000

// metricStore holds the series summaries handed to the engine. The engine
// never reads files: the CLI reads shards from the report directory and the
// page from its detail scripts, and both hand them over with LoadShard.
// The shards are cached within a budget (metriccache.go).
type metricStore struct {
	byShard map[string][]int    // shard id → series indexes
	loaded  map[int]*shardEntry // series index → its cached summary
	cache   shardCache
}

func (e *Engine) metricIndex() {
	e.metricsMu.Lock()
	defer e.metricsMu.Unlock()
	if e.metrics.byShard != nil {
		return
	}
	e.metrics.byShard = map[string][]int{}
	e.metrics.loaded = map[int]*shardEntry{}
	e.metrics.cache = shardCache{maxBytes: DefaultMetricCacheBytes, maxPoints: DefaultMetricCachePoints, entries: map[string]*shardEntry{}}
	for i, m := range e.c.Metrics {
		if m.Shard != nil {
			e.metrics.byShard[m.Shard.ID] = append(e.metrics.byShard[m.Shard.ID], i)
		}
	}
}

// LoadShard hands the engine the decoded payload of a metric shard named
// by id (the SHA-256 the report lists for it). Unknown ids and payloads that
// are not a valid series summary (its checksum, tables, header and index)
// are refused; its chunks are decoded, and checked, when an answer first
// reads them (metriclazy.go). The shard is kept at least until an answer
// reads it; after that, as long as the cache budget allows.
func (e *Engine) LoadShard(id string, raw []byte) error {
	return e.loadMetricShard(id, int64(len(raw)), func() (*pyramid.Pyramid, *pyramid.LazyShard, error) {
		return pyramid.OpenShardLazy(raw)
	})
}

// LoadShardFrames hands the engine a metric shard named by id as its
// tables, for a reader that inflates a segmented summary table by table
// (dsight query): head is the shard's head frame, table(k) the raw bytes
// of its table k, asked when an answer first reads it (a chunk) or now
// (the header and the index); size is the shard's decoded bytes, which
// the cache counts. The engine reads no file: table is the reader's. A
// table refused when first read fails the answer that reads it.
func (e *Engine) LoadShardFrames(id string, head []byte, table func(k int) ([]byte, error), size int64) error {
	return e.loadMetricShard(id, size, func() (*pyramid.Pyramid, *pyramid.LazyShard, error) {
		return pyramid.OpenShardFrames(head, int(size), table)
	})
}

// loadMetricShard keeps the summary open gives for shard id, size bytes
// decoded, once a series is known to use the shard.
func (e *Engine) loadMetricShard(id string, size int64, open func() (*pyramid.Pyramid, *pyramid.LazyShard, error)) error {
	e.metricIndex()
	e.metricsMu.Lock()
	series, ok := e.metrics.byShard[id]
	e.metricsMu.Unlock()
	if !ok {
		return notFound("no metric series uses shard %s", id)
	}
	p, lazy, err := open()
	if err != nil {
		return badArgs("metric shard %s: %v", id, err)
	}
	e.metricsMu.Lock()
	e.storeLocked(id, p, lazy, series, size)
	e.metricsMu.Unlock()
	return nil
}

// entryOf is the cached shard of series i, or nil.
func (e *Engine) entryOf(i int) *shardEntry {
	e.metricIndex()
	e.metricsMu.Lock()
	defer e.metricsMu.Unlock()
	return e.metrics.loaded[i]
}

// pyramidOf is the summary of series i with every chunk decoded, or nil
// when its shard is not loaded.
func (e *Engine) pyramidOf(i int) (*pyramid.Pyramid, error) {
	en := e.entryOf(i)
	if en == nil {
		return nil, nil
	}
	return en.whole()
}

// metricFamilies answers "metric_families": the catalog, in display order.
func (e *Engine) metricFamilies() list[MetricFamilyRecord] {
	fams := e.c.MetricFamilies
	out := list[MetricFamilyRecord]{Total: len(fams), Limit: len(fams), Range: [2]float64{0, e.durationS}, Items: make([]MetricFamilyRecord, len(fams))}
	for i := range fams {
		out.Items[i] = familyRecord(&fams[i])
	}
	return out
}

// defaultFamily is the family a report opens on when it has it.
const defaultFamily = "trtllm_num_requests_running"

// DefaultMetric answers "default_metric": the family the page shows when
// nothing else is asked for: defaultFamily if the report has it, else the
// first family with samples in display order, else the first family; nil
// without metrics.
func (e *Engine) DefaultMetric() *string {
	fams := e.c.MetricFamilies
	pick := -1
	for i := range fams {
		if fams[i].Name == defaultFamily {
			pick = i
			break
		}
		if pick < 0 && fams[i].Samples > 0 {
			pick = i
		}
	}
	if pick < 0 && len(fams) > 0 {
		pick = 0
	}
	if pick < 0 {
		return nil
	}
	return &fams[pick].Name
}

// matchSeries lists the series indexes matching the filters, in catalog
// order. gpu and rank compare as strings; name is exact.
func (e *Engine) matchSeries(a Args) []int {
	eq := func(want *string, got *string) bool {
		return want == nil || got != nil && *got == *want
	}
	var out []int
	for i := range e.c.Metrics {
		m := &e.c.Metrics[i]
		if a.Name != nil && m.Name != *a.Name {
			continue
		}
		if !eq(a.Worker, m.Worker) || !eq(a.Host, m.Host) || !eq(a.GPU, m.GPU) || !eq(a.Rank, m.Rank) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// metricSeries answers "metric_series": series metadata without samples.
func (e *Engine) metricSeries(a Args) (list[MetricSeriesRecord], error) {
	offset, limit := page(a)
	match := e.matchSeries(a)
	out := list[MetricSeriesRecord]{Total: len(match), Offset: offset, Limit: limit, Range: [2]float64{0, e.durationS}, Items: []MetricSeriesRecord{}}
	for k := offset; k < len(match) && len(out.Items) < limit; k++ {
		out.Items = append(out.Items, seriesRecord(&e.c.Metrics[match[k]]))
	}
	return out, nil
}

// ShardNeed names one metric shard a question needs.
type ShardNeed struct {
	ID     string            `json:"id"`
	Series []int             `json:"series"`
	Bytes  int               `json:"bytes"`
	Parts  []ShardPartRecord `json:"parts"`
	// DecodedBytes is the payload's size once decompressed, which a
	// reader checks; named for Nsight detail shards.
	DecodedBytes int `json:"decoded_bytes,omitempty"`
}

// MetricPlan is the answer of "metric_plan".
type MetricPlan struct {
	Shards []ShardNeed `json:"shards"`
}

// metricPlan answers "metric_plan": the shards "metrics" with the same
// arguments needs that are not loaded yet (the matched series' and their
// limit series'), so a reader fetches them before asking. It refuses a
// bad range as "metrics" would, before anything is fetched.
func (e *Engine) metricPlan(a Args) (MetricPlan, error) {
	if _, err := e.window(a); err != nil {
		return MetricPlan{}, err
	}
	return MetricPlan{e.missingShards(e.metricPage(a))}, nil
}

func (e *Engine) metricPage(a Args) []int {
	offset, limit := page(a)
	match := e.matchSeries(a)
	return match[min(offset, len(match)):min(offset+limit, len(match))]
}

func (e *Engine) missingShards(idx []int) []ShardNeed {
	held, missing := e.claim(idx)
	if missing != nil {
		return missing
	}
	// Planning reads nothing: the claim is let go without counting as a use.
	e.unpin(held)
	return []ShardNeed{}
}

// MetricItem is one series of a "metrics" answer.
type MetricItem struct {
	MetricSeriesRecord
	Shard           *MetricShardRecord `json:"shard"`
	Samples         int64              `json:"samples"`
	Min             *float64           `json:"min"`
	Max             *float64           `json:"max"`
	Mean            *float64           `json:"mean"`
	Last            *float64           `json:"last"`
	FirstTime       *float64           `json:"first_time"`
	LastTime        *float64           `json:"last_time"`
	Points          *[][4]any          `json:"points,omitempty"`
	PointsTotal     *int64             `json:"points_total,omitempty"`
	PointsTruncated *bool              `json:"points_truncated,omitempty"`
	// PointsBucketSeconds is set when the points are a plot envelope: per
	// bucket of this width, its recorded min and max samples (real rows).
	PointsBucketSeconds *float64      `json:"points_bucket_seconds,omitempty"`
	CarriedSetting      *[2]any       `json:"carried_setting,omitempty"`
	Capacity            *CapacityItem `json:"capacity,omitempty"`
}

// CapacityItem is the capacity legend of a series with a reference.
type CapacityItem struct {
	Reference    *int     `json:"reference_series_id"`
	Samples      int64    `json:"samples"`
	Peak         *[2]any  `json:"peak"`
	Limit        string   `json:"limit"` // unavailable, constant or changed
	LimitMin     *float64 `json:"limit_min"`
	LimitMax     *float64 `json:"limit_max"`
	Unavailable  int64    `json:"unavailable"`
	HighestUsage *[2]any  `json:"highest_usage"`
}

// queryMetrics answers "metrics": per matched series, exact statistics of its
// finite values in the range, optionally its rows (up to MaxMetricPoints),
// the setting carried into the range and the capacity legend. Every shard
// it needs must have been handed over with LoadShard; otherwise it fails
// naming them (metric_plan lists them in advance). The shards it read
// become the most recently used; the cache is trimmed after it answers.
func (e *Engine) queryMetrics(a Args) (*list[MetricItem], error) {
	w, err := e.window(a)
	if err != nil {
		return nil, err
	}
	offset, limit := page(a)
	idx := e.metricPage(a)
	held, miss := e.claim(idx)
	if len(miss) > 0 {
		return nil, shardsNeeded("metrics", miss)
	}
	defer e.release(held)
	out := list[MetricItem]{Total: len(e.matchSeries(a)), Offset: offset, Limit: limit, Range: w.json(), Items: []MetricItem{}}
	for _, i := range idx {
		item, err := e.metricItem(i, w, a.Points, a.Pixels)
		if err != nil {
			return nil, fmt.Errorf("metric series %d (%s): %w", i, e.c.Metrics[i].Name, err)
		}
		out.Items = append(out.Items, item)
	}
	return &out, nil
}

// shardsNeeded is the CodeShardsNeeded error of a question (what) that
// needs the missing shards.
func shardsNeeded(what string, miss []ShardNeed) *Error {
	ids := make([]string, len(miss))
	for k, m := range miss {
		ids[k] = m.ID
	}
	return &Error{Code: CodeShardsNeeded, Message: what + " needs shards not loaded: " + strings.Join(ids, ", "), Shards: miss}
}

func point(t int64, v float64, valid bool) [2]any {
	if !valid || math.IsNaN(v) || math.IsInf(v, 0) {
		return [2]any{seconds(t), nil}
	}
	return [2]any{seconds(t), v}
}

func fptr(v float64) *float64 { return &v }

// metricItemFrom is series i's item read from p, its summary, and lim,
// its limit series' (nil without one): an *pyramid.IncompleteError when
// they lack a chunk it reads (metricItem loads them).
func (e *Engine) metricItemFrom(i int, p, lim *pyramid.Pyramid, w window, withPoints bool, pixels int) (MetricItem, error) {
	m := e.c.Metrics[i]
	item := MetricItem{MetricSeriesRecord: seriesRecord(&m), Shard: metricShardRecord(m.Shard)}
	st, _, err := p.Stats(w.fromNS, w.toNS)
	if err != nil {
		return item, err
	}
	item.Samples = st.Count
	if st.Count > 0 {
		item.Min, item.Max, item.Last = fptr(st.Min.V), fptr(st.Max.V), fptr(st.Last.V)
		item.FirstTime, item.LastTime = fptr(seconds(st.First.T)), fptr(seconds(st.Last.T))
		if mean, ok := st.Mean(); ok {
			item.Mean = &mean
		}
	}
	if m.Temporal == "setting" {
		if row, valid, found, err := p.LastAtOrBefore(w.fromNS - 1); err != nil {
			return item, err
		} else if found {
			c := point(row.T, row.V, valid)
			item.CarriedSetting = &c
		}
	}
	switch total := st.Count + st.Gaps; {
	case withPoints && pixels > 0:
		pts, bucket, err := plotPoints(p, w.fromNS, w.toNS, pixels)
		if err != nil {
			return item, err
		}
		truncated := false
		item.Points, item.PointsTotal, item.PointsTruncated, item.PointsBucketSeconds = &pts, &total, &truncated, bucket
	case withPoints:
		pts, err := firstRows(p, w.fromNS, w.toNS, total)
		if err != nil {
			return item, err
		}
		truncated := total > int64(len(pts))
		item.Points, item.PointsTotal, item.PointsTruncated = &pts, &total, &truncated
	}
	if r := m.Reference; r != nil {
		c := &CapacityItem{Reference: r.SeriesID, Limit: "unavailable"}
		cp, err := pyramid.SummarizeCapacity(p, lim, w.fromNS, w.toNS)
		if err != nil {
			return item, err
		}
		c.Samples, c.Unavailable = cp.Samples, cp.Unavailable
		if cp.Samples > 0 {
			pk := point(cp.Peak.T, cp.Peak.V, true)
			c.Peak = &pk
		}
		switch cp.Limit {
		case pyramid.LimitConstant:
			c.Limit = "constant"
		case pyramid.LimitChanged:
			c.Limit = "changed"
		}
		if cp.Limit != pyramid.LimitUnavailable {
			c.LimitMin, c.LimitMax = fptr(cp.LimitMin), fptr(cp.LimitMax)
		}
		if cp.HasUsage {
			u := point(cp.HighestUsage.T, cp.HighestUsage.V, true)
			c.HighestUsage = &u
		}
		item.Capacity = c
	}
	return item, nil
}

// firstRowsEnd is where firstRows cuts [fromNS, toNS], which holds total
// rows.
func firstRowsEnd(p *pyramid.Pyramid, fromNS, toNS, total int64) (int64, error) {
	if total <= MaxMetricPoints {
		return toNS, nil
	}
	t, found, err := p.RowTime(fromNS, MaxMetricPoints)
	if err != nil || !found {
		return toNS, err
	}
	return min(max(t-1, fromNS), toNS), nil
}

// MaxPlotPixels bounds the width a plot may ask for.
const MaxPlotPixels = 8192

// plotPoints returns what a chart pixels wide needs to be exact: every row
// when the range holds few, else per bucket (at least two per pixel) its
// recorded min and max samples at their own times and a gap where the
// bucket holds one, so no peak is ever lost and every point is a real row.
// bucket is the bucket width in seconds, or nil for exact rows.
func plotPoints(p *pyramid.Pyramid, fromNS, toNS int64, pixels int) (pts [][4]any, bucket *float64, err error) {
	if pixels > MaxPlotPixels {
		return nil, nil, fmt.Errorf("pixels must be from 1 to %d; got %d", MaxPlotPixels, pixels)
	}
	v, err := p.Query(fromNS, toNS, pixels)
	if err != nil {
		return nil, nil, err
	}
	pts = make([][4]any, len(v.Times))
	for k := range v.Times {
		pts[k] = evidencePoint(v, k)
	}
	if !v.Exact {
		b := float64(int64(1)<<v.Shift) / 1e9
		bucket = &b
	}
	return pts, bucket, nil
}

// firstRows returns the first MaxMetricPoints rows of [fromNS, toNS]: the
// range is cut just before the row that would be one too many, so no more
// rows than needed are read. That row's time comes from the exact chunks
// holding it and fromNS alone (RowTime); narrowing the end by bisection,
// as this did, counted rows up to a dozen times in chunks it then never
// listed, each of which a question reading its shard in part had to
// decode. The end is the bisection's: one before that row, never before
// fromNS.
func firstRows(p *pyramid.Pyramid, fromNS, toNS, total int64) ([][4]any, error) {
	end, err := firstRowsEnd(p, fromNS, toNS, total)
	if err != nil {
		return nil, err
	}
	v, err := p.Query(fromNS, end, MaxMetricPoints/2)
	if err != nil {
		return nil, err
	}
	out := [][4]any{}
	if !v.Exact {
		// More than MaxMetricPoints events share the range's first
		// timestamp: none can be listed without cutting that timestamp.
		return out, nil
	}
	for k := range v.Times {
		out = append(out, evidencePoint(v, k))
	}
	return out, nil
}
