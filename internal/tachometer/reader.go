package tachometer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// Window selects the rows whose timestamp_ns lies in [StartNS, EndNS],
// both inclusive.
type Window struct {
	StartNS, EndNS int64
}

// Options configure Read.
type Options struct {
	// Window limits the points delivered; nil delivers every finite row.
	// Rows outside it are still validated and catalogued.
	Window *Window
	// Endpoints is the scraper configuration by endpoint name; nil when the
	// run has no tachometer_config.toml.
	Endpoints map[string]Endpoint
}

// Point is one delivered sample: absolute UTC epoch nanoseconds, the value,
// and its evidence (the index of its file in Capture.Files and its zero-based
// row in that file).
type Point struct {
	Series int32
	Source int32
	Row    int64
	TimeNS int64
	Value  float64
}

// Sink receives a capture as it is read. Series announces a series before
// any of its points; ids are dense from 0 in order of first delivered point.
// Points delivers points in read order (per series: file order, then row
// order); the slice is reused after Points returns. An error stops the read.
type Sink interface {
	Series(s *SeriesInfo) error
	Points(p []Point) error
}

// Audit counts what happened to the capture's rows.
type Audit struct {
	RowsScanned int64 `json:"metric_rows_scanned"`
	OutOfWindow int64 `json:"out_of_window_metric_rows"`
	// NonFinite counts in-window NaN, ±Inf or null values, which are dropped.
	NonFinite int64 `json:"nonfinite_metric_points"`
	// Duplicates counts in-window points identical in time and value to an
	// earlier point of the same series, which are dropped.
	Duplicates int64 `json:"duplicate_metric_points"`
	// ConflictingSamples counts the distinct values at timestamps where a
	// series has more than one; all of them are delivered.
	ConflictingSamples int64 `json:"conflicting_metric_samples"`
	// Unchecked counts points that arrived before an earlier point of their
	// series and outside the retained range, so they could not be compared
	// for duplicates or conflicts; they are delivered (see Read).
	Unchecked int64 `json:"unchecked_metric_points"`
	Points    int64 `json:"metric_points"`
	Families  int   `json:"metric_families"`
	// RetainedPeak is the largest number of (time, value) pairs held at
	// once for duplicate and conflict checks.
	RetainedPeak int64 `json:"retained_peak"`
}

// Family is one catalogued metric family. Every family seen in any row is
// listed, including families with no point in the window.
type Family struct {
	Name        string      `json:"name"`
	Histogram   bool        `json:"histogram"`
	Endpoints   []string    `json:"endpoints"`
	Rows        int64       `json:"rows"`         // rows in every file, in or out of the window
	SeriesCount int         `json:"series_count"` // series with at least one point
	Samples     int64       `json:"samples"`      // points delivered
	Description Description `json:"description"`
}

// SeriesStats is the outcome of finalisation for one series.
type SeriesStats struct {
	Points     int64 `json:"points"`
	Duplicates int64 `json:"duplicates"`
	// ConflictTimestampsNS lists, in order, the timestamps at which the
	// series has more than one distinct value.
	ConflictTimestampsNS []int64 `json:"conflict_timestamps_ns"`
	ConflictingSamples   int64   `json:"conflicting_samples"`
	Sources              []int32 `json:"source_ids"`
}

// FileStats describes one capture file. MinNS and MaxNS are meaningful
// only when Rows > 0.
type FileStats struct {
	Path     string   `json:"path"`
	Role     Role     `json:"role"`
	Encoding Encoding `json:"encoding"`
	Rows     int64    `json:"rows"`
	MinNS    int64    `json:"min_timestamp_ns"`
	MaxNS    int64    `json:"max_timestamp_ns"`
}

// Result is the catalog and finalisation record of a read.
type Result struct {
	Files    []FileStats   `json:"files"`
	Families []Family      `json:"families"` // sorted by name
	Series   []SeriesStats `json:"series"`   // indexed by series id
	Audit    Audit         `json:"audit"`
	Warnings []string      `json:"warnings"`
}

// ConflictQuality is appended to a family's quality note when one of its
// series has conflicting values at a timestamp.
const ConflictQuality = "Conflicting raw values share a source identity and timestamp; all observations remain in raw points."

const pointBatch = 4096

// Read streams a capture's in-window, finite samples into sink and returns
// the catalog of every family seen.
//
// Memory stays bounded by the batch size plus per-series state, not by the
// capture size. Duplicates and conflicts are found by keeping, per series,
// the values at its latest timestamp. When a later file's time range
// overlaps earlier files (an Arrow tail beside the Parquet it was compacted
// into), every series also keeps the (time, value) pairs from the start of
// that overlap on, so overlapping evidence is compared exactly; this costs 16
// bytes per point in the overlap. A point earlier than its series' latest
// timestamp and before the overlap (rows out of time order inside a file)
// cannot be compared: it is delivered and counted in Audit.Unchecked.
func Read(c *Capture, opts Options, sink Sink) (*Result, error) {
	if err := c.inspect(); err != nil {
		return nil, err
	}
	r := &reader{
		opts:     opts,
		sink:     sink,
		horizon:  c.horizon(),
		names:    map[string]*parsedName{},
		families: map[string]*familyState{},
		series:   map[string]*seriesState{},
		buf:      make([]Point, 0, pointBatch),
	}
	res := &Result{Warnings: append([]string(nil), c.Warnings...)}
	for i, f := range c.Files {
		if err := r.readFile(int32(i), f.Path); err != nil {
			return nil, err
		}
		fr := c.ranges[i]
		res.Files = append(res.Files, FileStats{Path: f.Path, Role: f.Role, Encoding: fr.enc, Rows: fr.rows, MinNS: fr.min, MaxNS: fr.max})
	}
	if err := r.flush(); err != nil {
		return nil, err
	}
	r.finish(res)
	return res, nil
}

type familyState struct {
	name              string
	histogram, scalar bool
	endpoints         map[string]bool
	rows              int64
	series            []*seriesState
}

type tv struct {
	ts int64
	v  float64
}

type seriesState struct {
	info    SeriesInfo
	family  *familyState
	id      int32 // -1 until the first point is delivered
	hasLast bool
	lastTS  int64
	recent  []tv // sorted by ts: the latest timestamp's values, and every pair at or after the horizon
	stats   SeriesStats
}

// rowEntry caches what one distinct row identity resolves to.
type rowEntry struct {
	family *familyState
	series *seriesState
}

type reader struct {
	opts     Options
	sink     Sink
	horizon  int64
	names    map[string]*parsedName
	families map[string]*familyState
	series   map[string]*seriesState
	ordered  []*seriesState // by id
	buf      []Point
	audit    Audit
	retained int64

	path string
	rows map[string]*rowEntry // per file: schema-specific identity bytes → entry
}

func (r *reader) readFile(source int32, path string) (err error) {
	defer func() {
		// Arrow and Parquet decoders can panic on corrupt input; report it
		// as this file's error instead of crashing the build.
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: corrupt capture file: %v", path, p)
		}
	}()
	src, _, err := openSource(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer src.close()
	l, err := checkSchema(src.schema())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := src.project(l.columns()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r.path = path
	r.rows = map[string]*rowEntry{}
	var offset int64
	var b batch
	for {
		rec, err := src.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: after row %d: %w", path, offset, err)
		}
		if err := b.reset(rec, l); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := r.readBatch(source, offset, &b); err != nil {
			return err
		}
		offset += rec.NumRows()
	}
}

// batch holds the decoded columns of one record batch.
type batch struct {
	n        int
	ts       []int64
	tsArr    arrow.Array
	values   []float64
	valArr   arrow.Array
	name     textColumn
	upper    []float64
	upperArr arrow.Array
	upper32  bool
	idNames  []string
	ids      []textColumn

	// Conversion buffers for timestamp and float32 columns, reused
	// across batches.
	tsBuf         []int64
	valBuf, upBuf []float64
}

func (b *batch) reset(rec arrow.Record, l layout) error {
	col := func(name string) arrow.Array {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) == 0 {
			return nil
		}
		return rec.Column(idx[0])
	}
	b.n = int(rec.NumRows())
	b.tsArr = col(colTimestamp)
	b.valArr = col(colValue)
	nameArr := col(colName)
	if b.tsArr == nil || b.valArr == nil || nameArr == nil {
		return errors.New("record batch lacks a required column")
	}
	b.ts = int64Values(b.tsArr, &b.tsBuf)
	b.values = float64Values(b.valArr, &b.valBuf)
	b.name = newTextColumn(nameArr)
	b.upperArr, b.upper = nil, nil
	if l.upper {
		if b.upperArr = col(colBucketUpper); b.upperArr == nil {
			return fmt.Errorf("record batch lacks column %q", colBucketUpper)
		}
		b.upper32 = b.upperArr.DataType().ID() == arrow.FLOAT32
		b.upper = float64Values(b.upperArr, &b.upBuf)
	}
	b.idNames = l.identity
	b.ids = b.ids[:0]
	for _, name := range l.identity {
		a := col(name)
		if a == nil {
			return fmt.Errorf("record batch lacks column %q", name)
		}
		b.ids = append(b.ids, newTextColumn(a))
	}
	return nil
}

func (r *reader) readBatch(source int32, offset int64, b *batch) error {
	var key []byte
	tsNulls := b.tsArr.NullN() > 0
	valNulls := b.valArr.NullN() > 0
	upperNulls := b.upperArr != nil && b.upperArr.NullN() > 0
	w := r.opts.Window
	for i := 0; i < b.n; i++ {
		row := offset + int64(i)
		if tsNulls && b.tsArr.IsNull(i) {
			return fmt.Errorf("%s: row %d: null timestamp_ns", r.path, row)
		}
		raw, ok := b.name(i)
		if !ok {
			return fmt.Errorf("%s: row %d: missing metric name (null)", r.path, row)
		}
		key = appendField(key[:0], raw)
		hasUpper := b.upper != nil && !(upperNulls && b.upperArr.IsNull(i))
		if hasUpper {
			key = binary.LittleEndian.AppendUint64(append(key, 1), math.Float64bits(b.upper[i]))
		} else {
			key = append(key, 0)
		}
		for _, id := range b.ids {
			v, ok := id(i)
			if !ok {
				key = append(key, 0)
				continue
			}
			key = appendField(append(key, 1), v)
		}
		e := r.rows[string(key)]
		if e == nil {
			var err error
			if e, err = r.resolve(b, i, raw, hasUpper); err != nil {
				return fmt.Errorf("%s: row %d: %w", r.path, row, err)
			}
			r.rows[string(key)] = e
		}
		e.family.rows++
		r.audit.RowsScanned++
		t := b.ts[i]
		if w != nil && (t < w.StartNS || t > w.EndNS) {
			r.audit.OutOfWindow++
			continue
		}
		v := b.values[i]
		if (valNulls && b.valArr.IsNull(i)) || math.IsNaN(v) || math.IsInf(v, 0) {
			r.audit.NonFinite++
			continue
		}
		if err := r.observe(e.series, t, v, source, row); err != nil {
			return err
		}
	}
	return nil
}

// resolve parses and validates a row identity not seen before in this file
// and finds its family and series.
func (r *reader) resolve(b *batch, i int, raw string, hasUpper bool) (*rowEntry, error) {
	p := r.names[raw]
	if p == nil {
		var err error
		raw = strings.Clone(raw)
		if p, err = parseCaptured(raw); err != nil {
			return nil, err
		}
		r.names[raw] = p
	}
	id := rowIdentity{raw: raw, parsed: p, upper32: b.upper32}
	if hasUpper {
		id.upper, id.hasUpper = b.upper[i], true
	}
	for k, col := range b.ids {
		if v, ok := col(i); ok {
			id.columns = append(id.columns, Label{Key: b.idNames[k], Value: strings.Clone(v)})
		}
	}
	family, histogram, inline, err := id.shape()
	if err != nil {
		return nil, err
	}
	f := r.families[family]
	if f == nil {
		f = &familyState{name: family, endpoints: map[string]bool{}}
		r.families[family] = f
	}
	f.histogram = f.histogram || histogram
	f.scalar = f.scalar || !histogram
	if f.histogram && f.scalar {
		return nil, fmt.Errorf("metric family %q mixes scalar values and histogram buckets", family)
	}
	info, key := describeSeries(&id, family, histogram, inline, r.opts.Endpoints)
	f.endpoints[info.Endpoint] = true
	s := r.series[key]
	if s == nil {
		s = &seriesState{info: info, family: f, id: -1}
		r.series[key] = s
	}
	return &rowEntry{family: f, series: s}, nil
}

// observe applies duplicate and conflict rules to one in-window point and
// queues it for the sink unless it is a duplicate.
func (r *reader) observe(s *seriesState, t int64, v float64, source int32, row int64) error {
	if s.id < 0 {
		s.id = int32(len(r.ordered))
		s.info.ID = int(s.id)
		r.ordered = append(r.ordered, s)
		s.family.series = append(s.family.series, s)
		if err := r.sink.Series(&s.info); err != nil {
			return err
		}
	}
	switch {
	case !s.hasLast || t > s.lastTS:
		if s.hasLast && s.lastTS < r.horizon {
			r.retained -= int64(len(s.recent))
			s.recent = s.recent[:0]
		}
		s.recent = append(s.recent, tv{t, v})
		r.retain(1)
		s.hasLast, s.lastTS = true, t
	case t < s.lastTS && t < r.horizon:
		r.audit.Unchecked++
	default:
		lo := sort.Search(len(s.recent), func(k int) bool { return s.recent[k].ts >= t })
		hi := lo
		for ; hi < len(s.recent) && s.recent[hi].ts == t; hi++ {
			if s.recent[hi].v == v { // numeric equality: 0.0 equals -0.0
				s.stats.Duplicates++
				r.audit.Duplicates++
				return nil
			}
		}
		switch hi - lo {
		case 0:
		case 1:
			s.stats.ConflictTimestampsNS = append(s.stats.ConflictTimestampsNS, t)
			s.stats.ConflictingSamples += 2
			r.audit.ConflictingSamples += 2
		default:
			s.stats.ConflictingSamples++
			r.audit.ConflictingSamples++
		}
		s.recent = slices.Insert(s.recent, hi, tv{t, v})
		r.retain(1)
	}
	s.stats.Points++
	if n := len(s.stats.Sources); n == 0 || s.stats.Sources[n-1] != source {
		s.stats.Sources = append(s.stats.Sources, source)
	}
	r.buf = append(r.buf, Point{Series: s.id, Source: source, Row: row, TimeNS: t, Value: v})
	if len(r.buf) == cap(r.buf) {
		return r.flush()
	}
	return nil
}

func (r *reader) retain(n int64) {
	r.retained += n
	if r.retained > r.audit.RetainedPeak {
		r.audit.RetainedPeak = r.retained
	}
}

func (r *reader) flush() error {
	if len(r.buf) == 0 {
		return nil
	}
	err := r.sink.Points(r.buf)
	r.buf = r.buf[:0]
	return err
}

func (r *reader) finish(res *Result) {
	res.Series = make([]SeriesStats, len(r.ordered))
	for i, s := range r.ordered {
		slices.Sort(s.stats.ConflictTimestampsNS)
		res.Series[i] = s.stats
		r.audit.Points += s.stats.Points
	}
	names := make([]string, 0, len(r.families))
	for name := range r.families {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := r.families[name]
		fam := Family{Name: name, Histogram: f.histogram, Rows: f.rows, SeriesCount: len(f.series)}
		for e := range f.endpoints {
			fam.Endpoints = append(fam.Endpoints, e)
		}
		sort.Strings(fam.Endpoints)
		fam.Description = Describe(name, fam.Endpoints, f.histogram)
		conflicted := false
		for _, s := range f.series {
			fam.Samples += s.stats.Points
			conflicted = conflicted || len(s.stats.ConflictTimestampsNS) > 0
		}
		if conflicted {
			fam.Description.Quality = strings.TrimSpace(fam.Description.Quality + " " + ConflictQuality)
		}
		res.Families = append(res.Families, fam)
	}
	r.audit.Families = len(res.Families)
	res.Audit = r.audit
}
