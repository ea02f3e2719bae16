package metrics

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/pyramid"
	"github.com/dsight/dsight/internal/tachometer"
)

func readCapture(opt Options, res *Result) ([]model.MetricFamily, []*built, error) {
	return readCaptureInto(opt, res, func() (pointStore, error) { return newSpillStore(0) })
}

// readCaptureInto reads the capture into a store made by newStore, then
// summarizes its series one at a time (one per core at once), so only the
// encoded summaries stay in memory.
func readCaptureInto(opt Options, res *Result, newStore func() (pointStore, error)) (_ []model.MetricFamily, _ []*built, err error) {
	var c *tachometer.Capture
	if opt.Sources != nil {
		c = opt.Sources.capture
	}
	if c == nil {
		root, explicit := filepath.Join(opt.LogDir, filepath.FromSlash(tachometer.DefaultRoot)), false
		if opt.Capture != "" {
			abs, err := filepath.Abs(opt.Capture)
			if err != nil {
				return nil, nil, err
			}
			root, explicit = abs, true
		}
		if c, err = tachometer.Discover(root, explicit); err != nil {
			return nil, nil, fmt.Errorf("--metrics: %w", err)
		}
	}
	// Before registering: files that cannot be read are left out of Files
	// (and so reported as unread), with a warning.
	if err := c.Inspect(); err != nil {
		return nil, nil, err
	}
	if len(c.Files) == 0 {
		res.Warnings = append(res.Warnings, c.Warnings...)
		return nil, nil, nil
	}
	endpoints, err := readCollectorConfig(opt)
	if err != nil {
		return nil, nil, err
	}
	store, err := newStore()
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if cerr := store.close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	r, err := tachometer.Read(c, tachometer.Options{Window: &tachometer.Window{StartNS: opt.OriginNS, EndNS: opt.LastNS}, Endpoints: endpoints}, store)
	if err != nil {
		return nil, nil, err
	}
	if err := store.endRead(); err != nil {
		return nil, nil, err
	}
	// Registered after the read, in file order (no other file is registered
	// meanwhile, so the ids are the same): registering hashes each file,
	// which the importer does beside the read.
	sourceIDs := make([]int, len(c.Files))
	for i, f := range c.Files {
		if sourceIDs[i], _, err = opt.Register(f.Path, KindCapture); err != nil {
			return nil, nil, err
		}
	}
	res.Warnings = append(res.Warnings, r.Warnings...) // the capture's own warnings included
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
	infos := store.seriesInfos()
	spool, err := newSummarySpool()
	if err != nil {
		return nil, nil, err
	}
	sc := &captureSummary{opt: opt, store: store, spool: spool, infos: infos, result: r, sourceIDs: sourceIDs, desc: desc, distinct: distinguishingLabels(infos)}
	// Summarizing allocates each series' levels, payload and compressed
	// copy, and keeps none of them; the collector runs twice as often
	// meanwhile (100M-sample capture: peak RSS 228-248 -> 184-188 MB, same
	// time, when the compressed copies were still kept in memory).
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	out, err := sc.all()
	if err != nil {
		return nil, nil, err
	}
	return families, out, nil
}

// readCollectorConfig reads the scraper configuration in the log directory,
// registering it as evidence, and returns its endpoints; nil when the run
// has none. It is read only for a capture, the one thing it describes.
func readCollectorConfig(opt Options) (map[string]tachometer.Endpoint, error) {
	if opt.LogDir == "" {
		return nil, nil
	}
	path := filepath.Join(opt.LogDir, tachometer.ConfigName)
	if opt.ReadFile != nil {
		var endpoints map[string]tachometer.Endpoint
		err := opt.ReadFile(path, KindCollectorConfig, func(r io.Reader) (err error) {
			endpoints, err = tachometer.ParseConfig(path, r)
			return err
		})
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return endpoints, err
	}
	endpoints, err := tachometer.ReadConfig(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, _, err := opt.Register(path, KindCollectorConfig); err != nil {
		return nil, err
	}
	return endpoints, nil
}

// captureSummary turns the stored series of a capture read into built
// series.
type captureSummary struct {
	opt       Options
	store     pointStore
	spool     *summarySpool
	infos     []*tachometer.SeriesInfo
	result    *tachometer.Result
	sourceIDs []int
	desc      map[string]tachometer.Description
	distinct  map[string]map[string]bool
	workers   int // summarizing goroutines; 0: one per core
}

// all summarizes every series, on as many goroutines as there are cores;
// each series is built on its own, so the order of work does not change any
// result, and the first failing series by id names the error.
func (cs *captureSummary) all() ([]*built, error) {
	out := make([]*built, len(cs.infos))
	errs := make([]error, len(cs.infos))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	workers := cs.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range max(1, min(workers, len(cs.infos))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := &loadScratch{}
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(cs.infos) {
					return
				}
				if out[i], errs[i] = cs.oneSafely(i, sc); errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// oneSafely is one with a panic turned into the series' error, so that a
// worker goroutine cannot end the process before the spill is removed.
func (cs *captureSummary) oneSafely(i int, sc *loadScratch) (b *built, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("capture series %s: %v", cs.infos[i].RawName, p)
		}
	}()
	return cs.one(i, sc)
}

// one summarizes series i and encodes its summary.
func (cs *captureSummary) one(i int, sc *loadScratch) (*built, error) {
	info := cs.infos[i]
	t, v, err := cs.store.load(i, sc)
	if err != nil {
		return nil, err
	}
	b, err := pyramid.NewBuilder(pyramid.Options{Temporal: pyramid.Sample, Points: int64(len(t)), Evidence: true})
	if err != nil {
		return nil, err
	}
	if err := cs.addPoints(b, sc, &sc.run, i, t, v); err != nil {
		return nil, err
	}
	cs.store.release(i)
	p := b.Finish()
	d := cs.desc[info.Name]
	labels := make([]model.MetricLabel, len(info.Labels))
	for k, l := range info.Labels {
		labels[k] = model.MetricLabel{Key: l.Key, Value: l.Value}
	}
	var sources []int
	if i < len(cs.result.Series) {
		for _, s := range cs.result.Series[i].Sources {
			if int(s) < len(cs.sourceIDs) {
				sources = append(sources, cs.sourceIDs[s])
			}
		}
	}
	meta := model.MetricSeries{
		Name: info.Name, Label: captureLabel(d.Title, info, cs.distinct), Unit: d.Unit, ValueKind: string(d.ValueKind),
		Component: d.Component, Group: d.Group, Description: d.Description, RawName: info.RawName,
		Endpoint: info.Endpoint, Host: strPtr(info.Host), GPU: strPtr(info.GPU), Worker: strPtr(info.Worker),
		Rank: strPtr(info.Rank), RankKind: strPtr(info.RankKind), WorkerProcess: strPtr(info.WorkerProcess),
		Labels: labels, Temporal: "sample", SourceIDs: nonNilInts(sources), Samples: int64(len(t)), Rows: p.Rows(),
	}
	sb := &built{meta: meta, p: p, ref: -1, sortKey: seriesKey(meta)}
	if err := sb.encode(cs.spool); err != nil { // no capture series is another's limit
		return nil, err
	}
	p.Recycle() // encoded: its chunks serve the next series
	return sb, nil
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
