package metrics

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dsight/dsight/internal/lineread"
	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/sglang"
	"github.com/dsight/dsight/internal/shard"
	"github.com/dsight/dsight/internal/sourcename"
	"github.com/dsight/dsight/internal/tachometer"
	"github.com/dsight/dsight/internal/tokenspeed"
)

// ShardKind names the shard that holds one series' summary.
const ShardKind = pyramid.ShardKind

// Source kinds registered through Options.Register, as the report's source
// manifest names them.
const (
	KindCapture   = "tachometer_raw"
	KindWorkerLog = "worker_log"
	// KindCollectorConfig is the scraper configuration
	// (tachometer_config.toml), whose endpoint metadata identifies capture
	// rows that lack their own metadata columns.
	KindCollectorConfig = "collector_config"
)

// Options say what to read and in which frame.
type Options struct {
	// LogDir is the run's log directory; captures are looked for under
	// LogDir/tachometer/local unless Capture is set.
	LogDir string
	// Capture is an explicit --metrics path (a capture leaf or one file);
	// it must exist.
	Capture string
	// WorkerLogs are the worker log files (absolute paths) to offer to the
	// log-metric generators.
	WorkerLogs []string
	// Location aligns naive local log timestamps; nil omits those metrics
	// with a warning.
	Location *time.Location
	// OriginNS and LastNS are the run window, absolute epoch ns, inclusive.
	OriginNS, LastNS int64
	// Register records a file read as evidence and returns its source id
	// and its path as shown in evidence. The importer owns ids, hashes and
	// change stamps; a file registered earlier keeps its id.
	Register func(path, kind string) (id int, rel string, err error)

	// A caller that discovers and opens the run's files itself (the
	// importer, which walks the run once and opens every file once) hands
	// over what it found and read with the two fields below; left empty,
	// Read finds and opens the files on its own.

	// Sources are the capture and log metrics the caller found and read;
	// with them, Capture and WorkerLogs are not looked at.
	Sources *Sources
	// ReadFile reads the collector configuration at path once through read
	// and registers it as kind, like Register; a missing file is an error
	// wrapping fs.ErrNotExist. nil opens the file here and calls Register.
	ReadFile func(path, kind string, read func(io.Reader) error) error
}

// Result is the catalog and series of a run.
type Result struct {
	Families []model.MetricFamily
	// Series are in catalog order; Series[i].ID == i and Series[i].Summary
	// holds the encoded summary (in a temporary file, removed when no
	// series refers to it any more).
	Series   []model.MetricSeries
	Warnings []string
	Audit    map[string]int64
}

// built is one series while it is assembled.
type built struct {
	meta    model.MetricSeries
	sortKey string
	p       *pyramid.Pyramid
	ref     int // index into the same slice of the limit series, or -1
}

// displayOrder is where a family sits in the Metrics panel: by component
// (tachometer.Components first, in that order, then others by name), then
// group (GroupOrder, then name), then Order, then name. It is the one
// definition of that order: the catalog, and so every answer, lists
// families and their series in it, and the page shows families as listed,
// one option group per run of equal component and group.
type displayOrder struct {
	component     int
	componentName string
	group         int
	groupName     string
	order         int
	name          string
}

func displayOrderOf(f *model.MetricFamily) displayOrder {
	component := slices.Index(tachometer.Components, f.Component)
	if component < 0 {
		component = len(tachometer.Components)
	}
	return displayOrder{component, f.Component, f.GroupOrder, f.Group, f.Order, f.Name}
}

func (a displayOrder) compare(b displayOrder) int {
	return cmp.Or(cmp.Compare(a.component, b.component), strings.Compare(a.componentName, b.componentName),
		cmp.Compare(a.group, b.group), strings.Compare(a.groupName, b.groupName),
		cmp.Compare(a.order, b.order), strings.Compare(a.name, b.name))
}

// Read reads the captures and worker logs named by opt.
func Read(opt Options) (*Result, error) {
	if opt.Register == nil {
		return nil, errors.New("metrics: no source registration")
	}
	if opt.Sources != nil && opt.Sources.err != nil {
		return nil, opt.Sources.err
	}
	res := &Result{Audit: map[string]int64{}}
	var all []*built
	var families []model.MetricFamily
	capFams, capSeries, err := readCapture(opt, res)
	if err != nil {
		return nil, err
	}
	families = append(families, capFams...)
	all = append(all, capSeries...)
	logFams, logSeries, err := readLogs(opt, res, capFams)
	if err != nil {
		return nil, err
	}
	families = append(families, logFams...)
	for _, b := range logSeries {
		if b.ref >= 0 { // references index the log series; shift them past the captures
			b.ref += len(capSeries)
		}
	}
	all = append(all, logSeries...)

	orderOf := map[string]displayOrder{}
	for i := range families {
		orderOf[families[i].Name] = displayOrderOf(&families[i])
	}
	sort.SliceStable(families, func(i, j int) bool { return orderOf[families[i].Name].compare(orderOf[families[j].Name]) < 0 })
	// Series follow their family, then their identity, so ids are stable
	// whatever order the files were read in.
	perm := make([]int, len(all))
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool {
		x, y := all[perm[a]], all[perm[b]]
		if c := orderOf[x.meta.Name].compare(orderOf[y.meta.Name]); c != 0 {
			return c < 0
		}
		return x.sortKey < y.sortKey
	})
	newID := make([]int, len(all))
	for k, i := range perm {
		newID[i] = k
	}
	res.Series = make([]model.MetricSeries, len(all))
	var spool *summarySpool // for the log series; capture series are already in their own
	for k, i := range perm {
		b := all[i]
		b.meta.ID = k
		if b.meta.Reference != nil && b.ref >= 0 {
			id := newID[b.ref]
			b.meta.Reference.SeriesID = &id
		}
		if b.p != nil && spool == nil {
			if spool, err = newSummarySpool(); err != nil {
				return nil, err
			}
		}
		if err := b.encode(spool); err != nil {
			return nil, err
		}
		res.Series[k] = b.meta
	}
	res.Families = families
	res.Audit["metric_families"] = int64(len(families))
	return res, nil
}

// encode replaces the series' pyramid by its encoded payload in spool, once
// no other series needs it as a limit; encoding each series as soon as it
// is built keeps one pyramid in memory at a time instead of all of them.
func (b *built) encode(spool *summarySpool) error {
	if b.p == nil {
		return nil
	}
	buf, _ := rawBuffers.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	defer rawBuffers.Put(buf)
	raw, err := b.p.AppendShard((*buf)[:0])
	if err != nil {
		return fmt.Errorf("metric series %s: %w", b.meta.Name, err)
	}
	*buf = raw
	gz, err := shard.CompressSummary(raw)
	if err != nil {
		return fmt.Errorf("metric series %s: %w", b.meta.Name, err)
	}
	payload, err := spool.add(gz)
	if err != nil {
		return fmt.Errorf("metric series %s: %w", b.meta.Name, err)
	}
	b.meta.Summary = &model.MetricSummary{Payload: payload, DecodedBytes: len(raw), MetricBounds: bounds(b.p)}
	b.p = nil
	return nil
}

// bounds records what a reader needs to pick a series' summary by time
// without loading it: its chunk count and the time span of its rows.
func bounds(p *pyramid.Pyramid) model.MetricBounds {
	first, last, _ := p.RowSpan()
	return model.MetricBounds{Chunks: p.ChunkCount(), FirstNS: first, LastNS: last}
}

// DecodePyramid opens an encoded series summary with every chunk loaded.
func DecodePyramid(raw []byte) (*pyramid.Pyramid, error) { return pyramid.DecodeShard(raw) }

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Generators are the worker-log metric generators, in catalog order. This
// is the one list: the importer applies it when it reads a worker log.
func Generators() []logmetric.Generator {
	return []logmetric.Generator{sglang.Generator{}, tokenspeed.Generator{}}
}

// readLogs applies the generators to every worker log (or takes the
// caller's reads of them, Options.Logs) and builds their series.
func readLogs(opt Options, res *Result, capFams []model.MetricFamily) ([]model.MetricFamily, []*built, error) {
	gens := Generators()
	defs, err := logmetric.Catalog(gens...)
	if err != nil {
		return nil, nil, err
	}
	taken := map[string]bool{}
	for _, f := range capFams {
		taken[f.Name] = true
	}
	for _, d := range defs {
		if taken[d.Name] {
			return nil, nil, fmt.Errorf("%w: %s is both a captured family and a log metric", logmetric.ErrNameCollision, d.Name)
		}
	}
	var parts []*logmetric.Result
	workers := opt.WorkerLogs
	if opt.Sources != nil {
		parts, workers = opt.Sources.logs, nil
	}
	for _, path := range workers {
		id, ok := sourcename.Parse(filepath.Base(path))
		if !ok || id.IsFrontend() {
			continue
		}
		src, rel, err := opt.Register(path, KindWorkerLog)
		if err != nil {
			return nil, nil, err
		}
		f, err := lineread.Open(path)
		if err != nil {
			return nil, nil, err
		}
		r, err := logmetric.Read(f, logmetric.SourceInfo{Path: rel, SourceID: src, Worker: id.Worker, Host: id.Host, Role: id.Role}, opt.Location, gens...)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		parts = append(parts, r)
	}
	if len(parts) == 0 {
		return nil, nil, nil
	}
	merged := logmetric.Merge(parts...)
	res.Warnings = append(res.Warnings, merged.Warnings...)
	if merged.Unaligned > 0 {
		res.Audit["unaligned_log_metric_records"] = int64(merged.Unaligned)
	}
	if n := merged.Rejected; n > 0 {
		res.Audit["rejected_log_metric_lines"] = int64(n)
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d worker log metric line(s) fail validation and were dropped whole or in part (first: %s)", n, merged.FirstRejected))
	}
	if n := merged.Conflicts; n > 0 {
		res.Audit["conflicting_log_metric_points"] = int64(n)
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d worker log metric point(s) repeat a timestamp of their series with another value; both are kept (first: %s)", n, merged.FirstConflict))
	}
	// Every family that produced a series is catalogued, also when the
	// window keeps none of its points.
	type famAcc struct {
		def     logmetric.Definition
		gen     string
		series  int
		samples int64
	}
	fams := map[string]*famAcc{}
	var famNames []string
	for i := range merged.Series {
		s := &merged.Series[i]
		if fams[s.Definition.Name] == nil {
			fams[s.Definition.Name] = &famAcc{def: s.Definition, gen: s.Generator}
			famNames = append(famNames, s.Definition.Name)
		}
	}
	zone := "UTC"
	if opt.Location != nil {
		zone = opt.Location.String()
	}
	if outside, warns := windowLosses(merged, opt.OriginNS, opt.LastNS, zone); outside > 0 {
		res.Audit["out_of_window_log_metric_points"] = outside
		res.Warnings = append(res.Warnings, warns...)
	}
	clipped := merged.Clip(opt.OriginNS, opt.LastNS)
	out := make([]*built, len(clipped.Series))
	// Limits first, so an observed series can resolve its limit per sample.
	order := make([]int, 0, len(clipped.Series))
	for i := range clipped.Series {
		if clipped.Series[i].Reference == nil {
			order = append(order, i)
		}
	}
	for i := range clipped.Series {
		if clipped.Series[i].Reference != nil {
			order = append(order, i)
		}
	}
	for _, i := range order {
		s := &clipped.Series[i]
		temporal := pyramidTemporal(s.Definition.Temporal)
		popt := pyramid.Options{Temporal: temporal, Points: int64(len(s.Points)), Evidence: true}
		ref := -1
		if s.Reference != nil && s.Reference.Series >= 0 {
			ref = s.Reference.Series
			if out[ref] != nil {
				popt.Limit = out[ref].p
			}
		}
		b, err := pyramid.NewBuilder(popt)
		if err != nil {
			return nil, nil, err
		}
		var samples int64
		for _, p := range s.Points {
			if err := b.AddFrom(p.TimeNS-opt.OriginNS, p.Value, p.Null, int64(p.SourceID), p.Line); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", s.Source.Path, err)
			}
			if !p.Null && p.TimeNS >= opt.OriginNS {
				samples++
			}
		}
		res.Audit["metric_points"] += int64(len(s.Points))
		fa := fams[s.Definition.Name]
		fa.series++
		fa.samples += samples
		d := s.Definition
		labels := make([]model.MetricLabel, 0, len(s.Labels)+2)
		for _, l := range s.Labels {
			labels = append(labels, model.MetricLabel{Key: l.Key, Value: l.Value})
		}
		resolution := s.TimeResolution()
		meta := model.MetricSeries{
			Name: d.Name, Label: logLabel(s), Unit: d.Unit, ValueKind: string(tachometer.Stored),
			Component: d.Component, Group: d.Group, Description: d.Description, RawName: d.Name,
			Endpoint: "worker_log", Host: strPtr(s.Source.Host), Worker: strPtr(s.Source.Worker),
			WorkerProcess: strPtr(s.Process), Labels: labels, SourceKind: "worker_log", Generator: s.Generator,
			Temporal: temporalName(s.Definition.Temporal), TimeResolutionS: &resolution,
			SourceIDs: []int{s.Source.SourceID}, Samples: samples,
		}
		if s.Rank.Known() {
			meta.Rank, meta.RankKind = strPtr(strconv.Itoa(s.Rank.Index)), strPtr(s.Rank.Kind)
		}
		if s.Reference != nil {
			meta.Reference = &model.MetricReference{Name: s.Reference.Name, Label: s.Reference.Label}
		}
		p := b.Finish()
		meta.Rows = p.Rows()
		out[i] = &built{meta: meta, p: p, ref: ref, sortKey: seriesKey(meta)}
	}
	var families []model.MetricFamily
	for _, name := range famNames {
		fa := fams[name]
		d := fa.def
		families = append(families, model.MetricFamily{
			Name: d.Name, Component: d.Component, Group: d.Group, GroupOrder: 90, Title: d.Title, Unit: d.Unit,
			Description: d.Description, ValueKind: string(tachometer.Stored),
			Quality:     "Periodic log observations of one worker scope; values from different ranks, phases, files or workers are never combined.",
			SeriesCount: fa.series, Samples: fa.samples, Endpoints: []string{"worker_log"},
			SourceKind: "worker_log", Generator: fa.gen, Temporal: temporalName(d.Temporal),
		})
	}
	return families, out, nil
}

func pyramidTemporal(t logmetric.Temporal) pyramid.Temporal {
	switch t {
	case logmetric.TemporalEvent:
		return pyramid.Event
	case logmetric.TemporalSetting:
		return pyramid.Setting
	}
	return pyramid.Sample
}

func temporalName(t logmetric.Temporal) string {
	if t == 0 {
		return logmetric.TemporalSample.String()
	}
	return t.String()
}

func logLabel(s *logmetric.Series) string {
	parts := []string{s.Definition.Title, s.Source.Worker}
	if s.Rank.Known() {
		parts = append(parts, s.Rank.String())
	}
	for _, l := range s.Labels {
		parts = append(parts, l.Key+"="+l.Value)
	}
	return joinNonEmpty(parts)
}

func joinNonEmpty(parts []string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, " · ")
}

// seriesKey orders series of one family by their identity.
func seriesKey(m model.MetricSeries) string {
	var b strings.Builder
	for _, p := range []*string{m.Worker, m.Host, m.GPU, m.Rank, m.RankKind, m.WorkerProcess} {
		if p != nil {
			b.WriteString(*p)
		}
		b.WriteByte(0)
	}
	b.WriteString(m.Endpoint)
	for _, l := range m.Labels {
		b.WriteByte(0)
		b.WriteString(l.Key)
		b.WriteByte('=')
		b.WriteString(l.Value)
	}
	for _, id := range m.SourceIDs {
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(id))
	}
	return b.String()
}
