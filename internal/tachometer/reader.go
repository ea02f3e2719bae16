package tachometer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
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
// any of its points; ids are dense from 0 in order of first delivered point,
// and the SeriesInfo may be kept (it is not changed afterwards). Points
// delivers points in read order: per series, file order then row order. That
// is time order except where files overlap (a tail sample at a timestamp
// already seen arrives after later samples), so a consumer that needs time
// order sorts by (TimeNS, Source, Row). The slice is reused after Points
// returns. An error from either method stops the read.
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
	if err := c.Inspect(); err != nil {
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
		fr := c.ranges[i]
		rows, err := r.readFile(c.Open, int32(i), f.Path)
		if err != nil {
			return nil, err
		}
		if rows != fr.rows {
			return nil, fmt.Errorf("%s: file changed during import (%d rows, %d when first read); use a preserved run", f.Path, rows, fr.rows)
		}
		if rows > 0 && (r.seenMin != fr.min || r.seenMax != fr.max) {
			return nil, fmt.Errorf("%s: its rows span timestamps %d to %d, but %d to %d when first read (file changed during import, or its Parquet statistics are wrong); use a preserved run or rewrite the file", f.Path, r.seenMin, r.seenMax, fr.min, fr.max)
		}
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

	path     string
	identity []string    // per file: identity column names, in schema order
	entries  []*rowEntry // per file: by row identity id (identityCoder)
	// seenMin and seenMax are the file's timestamp range as read, checked
	// against the range Inspect found or took from the file's statistics.
	seenMin, seenMax int64
}

// readFile streams one file and returns how many rows it held.
func (r *reader) readFile(open OpenFunc, source int32, path string) (rows int64, err error) {
	defer func() {
		// Arrow and Parquet decoders can panic on corrupt input; report it
		// as this file's error instead of crashing the build.
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: corrupt capture file: %v", path, p)
		}
	}()
	src, _, err := openSourceWith(open, path)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	defer src.close()
	l, err := checkSchema(src.schema())
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if err := src.project(l); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	r.path, r.identity, r.entries = path, l.identity, nil
	r.seenMin, r.seenMax = math.MaxInt64, math.MinInt64
	var offset int64
	pf := prefetch(src)
	defer pf.stop() // before src.close, deferred earlier
	for {
		b, err := pf.next()
		if errors.Is(err, io.EOF) {
			return offset, nil
		}
		var corrupt *decodePanic
		if errors.As(err, &corrupt) {
			return 0, fmt.Errorf("%s: %w", path, corrupt)
		}
		if err != nil {
			return 0, fmt.Errorf("%s: after row %d: %w", path, offset, err)
		}
		if err := r.readBatch(source, offset, b); err != nil {
			return 0, err
		}
		offset += int64(b.n)
	}
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
