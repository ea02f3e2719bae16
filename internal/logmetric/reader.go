package logmetric

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dsight/dsight/internal/lineread"
)

// maxLineBytes bounds one physical line offered to generators. Longer lines
// (dumped prompts, tensors) are skipped and counted, never buffered whole.
const maxLineBytes = 1 << 20

// Warning texts, kept free of file names so the importer can deduplicate
// them across files; counts live in Result.
const (
	WarnNeedTimezone = "log metrics with local timestamps omitted: local timestamps need --iteration-timezone"
	WarnLongLines    = "worker log lines longer than 1 MiB were not read for log metrics"
)

// SourceInfo identifies the worker log being read. It comes from the file
// name and the importer's source manifest, never from the log's contents.
type SourceInfo struct {
	Path     string // as shown in errors and evidence
	SourceID int    // index into the dataset's source manifest
	Worker   string // "<role>-<index>", e.g. "decode-0"
	Host     string
	Role     string // canonical role: prefill, decode or agg
}

// Point is one recorded value with its evidence.
type Point struct {
	TimeNS   int64 // absolute epoch nanoseconds
	Value    float64
	Null     bool // a setting explicitly cleared; Value is meaningless
	SourceID int
	Line     int64 // 1-based physical line
}

// Reference pairs a series with its limit or pool series.
type Reference struct {
	Name  string
	Label string
	// Series indexes Result.Series; -1 when no series with that name exists
	// in exactly the same scope.
	Series int
}

// Series is one metric in one scope, points in time order (ties in line
// order).
type Series struct {
	Definition Definition
	Generator  string
	Source     SourceInfo
	Rank       Rank
	Process    string  // "" = not recorded
	Labels     []Label // sorted by key
	// FracDigits is the coarsest timestamp precision among the points: the
	// series resolution is 10^-FracDigits seconds.
	FracDigits int
	Points     []Point
	Reference  *Reference // nil when the definition declares none
}

// TimeResolution is the series' timestamp resolution in seconds.
func (s *Series) TimeResolution() float64 { return math.Pow10(-s.FracDigits) }

// Window is an interval of absolute epoch nanoseconds, both ends inclusive.
type Window struct {
	StartNS, EndNS int64
}

// Result is what Read found in one worker log (or, after Merge, in several).
type Result struct {
	Series []Series
	// Warnings are distinct messages; see the Warn* constants.
	Warnings []string
	// Unaligned counts observations omitted for lack of a timezone.
	Unaligned int
	// LongLines counts physical lines skipped for exceeding 1 MiB.
	LongLines int
	Lines     int64
	// Losses are the lines rejected and the conflicting points.
	Losses
	// Window spans aligned observations that carry a non-setting value, from
	// the earliest timestamp to the latest timestamp plus its resolution. It
	// is nil when there are none: configuration alone never creates a time
	// envelope.
	Window *Window
}

// Read applies the generators to every physical line of one worker log. Lines
// are split on '\n' only (a trailing '\r' is dropped), so a carriage return in
// progress output does not shift line evidence. A nil loc omits observations
// with naive local timestamps and records WarnNeedTimezone.
func Read(r io.Reader, src SourceInfo, loc *time.Location, gens ...Generator) (*Result, error) {
	idx, err := index(gens)
	if err != nil {
		return nil, err
	}
	b := &builder{
		idx:      idx,
		gens:     gens,
		src:      src,
		loc:      loc,
		scopes:   map[string]int{},
		bySeries: map[seriesKey]int{},
		result:   &Result{},
	}
	lines := lineread.New(r, maxLineBytes)
	lines.SkipLong()
	for lines.Next() {
		if lines.Long() {
			b.result.LongLines++
			continue
		}
		line := bytes.TrimSuffix(lines.Bytes(), []byte{'\r'})
		for gi, g := range gens {
			obs, ok, err := g.Decode(line)
			if err != nil {
				return nil, &lineread.LineError{Path: src.Path, Line: lines.Line(), Err: fmt.Errorf("%s: %w", g.Name(), err)}
			}
			if !ok {
				if obs.Dropped != "" {
					b.result.reject(src.Path, lines.Line(), g.Name(), obs.Dropped)
				}
				continue
			}
			switch {
			case obs.Dropped != "":
				b.result.reject(src.Path, lines.Line(), g.Name(), obs.Dropped)
			case !lines.Terminated():
				b.result.reject(src.Path, lines.Line(), g.Name(), TornLastLine)
			}
			if err := b.add(gi, obs, lines.Line()); err != nil {
				return nil, &lineread.LineError{Path: src.Path, Line: lines.Line(), Err: err}
			}
		}
	}
	if err := lines.Err(); err != nil {
		return nil, &lineread.LineError{Path: src.Path, Line: lines.Line(), Err: err}
	}
	b.result.Lines = lines.Line()
	return b.finish(), nil
}

type builder struct {
	idx      *catalogIndex
	gens     []Generator
	src      SourceInfo
	loc      *time.Location
	scopes   map[string]int    // scope key -> scope id
	bySeries map[seriesKey]int // -> index in result.Series
	scopeOf  []int             // scope id per series
	result   *Result
	// Scratch buffers reused across lines.
	keyBuf   []byte
	kept     []Value
	labelBuf []Label
}

type seriesKey struct {
	name  string
	scope int
}

func (b *builder) add(gi int, obs Observation, line int64) error {
	if !obs.Rank.Known() {
		obs.Rank.Index = 0
	}
	b.kept = b.kept[:0]
	hasSample := false
	for _, v := range obs.Values {
		e, ok := b.idx.byName[v.Name]
		switch {
		case !ok || e.gen != gi:
			return fmt.Errorf("generator %s emitted undeclared metric %q", b.gens[gi].Name(), v.Name)
		case !e.def.Roles.Allows(b.src.Role):
			continue
		case v.Null && e.def.Temporal != TemporalSetting:
			return fmt.Errorf("null value for %s, which is not a setting", v.Name)
		case !v.Null && (math.IsNaN(v.Number) || math.IsInf(v.Number, 0)):
			return fmt.Errorf("non-finite log metric %s", v.Name)
		}
		hasSample = hasSample || e.def.Temporal != TemporalSetting
		b.kept = append(b.kept, v)
	}
	if len(b.kept) == 0 {
		return nil
	}
	ns, aligned, err := obs.Time.EpochNS(b.loc)
	if err != nil {
		return err
	}
	if !aligned {
		b.result.Unaligned++
		return nil
	}
	labels, err := b.sortedLabels(obs.Labels)
	if err != nil {
		return err
	}
	scope := b.scope(gi, obs, labels)
	for _, v := range b.kept {
		si := b.series(gi, v.Name, scope, obs, labels)
		s := &b.result.Series[si]
		s.Points = append(s.Points, Point{TimeNS: ns, Value: v.Number, Null: v.Null, SourceID: b.src.SourceID, Line: line})
		s.FracDigits = min(s.FracDigits, obs.Time.FracDigits)
	}
	if hasSample {
		end := ns + obs.Time.ResolutionNS()
		if end < ns { // the resolution pushed past the int64 range
			end = math.MaxInt64
		}
		if w := b.result.Window; w == nil {
			b.result.Window = &Window{StartNS: ns, EndNS: end}
		} else {
			w.StartNS, w.EndNS = min(w.StartNS, ns), max(w.EndNS, end)
		}
	}
	return nil
}

// sortedLabels returns the labels sorted by key in a scratch buffer, valid
// until the next line.
func (b *builder) sortedLabels(in []Label) ([]Label, error) {
	out := append(b.labelBuf[:0], in...)
	b.labelBuf = out
	slices.SortFunc(out, func(a, b Label) int { return strings.Compare(a.Key, b.Key) })
	for i, l := range out {
		if l.Key == "" {
			return nil, errors.New("observation has a label without a key")
		}
		if i > 0 && out[i-1].Key == l.Key {
			return nil, fmt.Errorf("observation repeats label %q", l.Key)
		}
	}
	return out, nil
}

// scope returns the id of everything that isolates a series except its name.
// Every part of the key is length-prefixed, so strings from the log cannot
// forge another scope.
func (b *builder) scope(gi int, obs Observation, labels []Label) int {
	k := b.keyBuf[:0]
	put := func(s string) {
		k = strconv.AppendInt(k, int64(len(s)), 10)
		k = append(k, ':')
		k = append(k, s...)
	}
	k = strconv.AppendInt(k, int64(gi), 10)
	put(obs.Rank.Kind)
	k = strconv.AppendInt(k, int64(obs.Rank.Index), 10)
	put(obs.Process)
	for _, l := range labels {
		put(l.Key)
		put(l.Value)
	}
	b.keyBuf = k
	if id, ok := b.scopes[string(k)]; ok { // no allocation for the lookup
		return id
	}
	id := len(b.scopes)
	b.scopes[string(k)] = id
	return id
}

func (b *builder) series(gi int, name string, scope int, obs Observation, labels []Label) int {
	key := seriesKey{name: name, scope: scope}
	if si, ok := b.bySeries[key]; ok {
		return si
	}
	def := b.idx.byName[name].def
	s := Series{
		Definition: def,
		Generator:  b.gens[gi].Name(),
		Source:     b.src,
		Rank:       obs.Rank,
		Process:    obs.Process,
		Labels:     slices.Clone(labels),
		FracDigits: obs.Time.FracDigits,
	}
	if len(s.Labels) == 0 {
		s.Labels = nil
	}
	if def.Reference != "" {
		s.Reference = &Reference{Name: def.Reference, Label: b.idx.referenceLabel(def), Series: -1}
	}
	b.result.Series = append(b.result.Series, s)
	b.scopeOf = append(b.scopeOf, scope)
	si := len(b.result.Series) - 1
	b.bySeries[key] = si
	return si
}

// finish orders points and resolves references after every series exists,
// so pairing does not depend on which line came first.
func (b *builder) finish() *Result {
	r := b.result
	for i := range r.Series {
		s := &r.Series[i]
		slices.SortStableFunc(s.Points, comparePointTime)
		if s.Definition.Temporal != TemporalEvent { // simultaneous events never conflict
			r.countConflicts(s.Source.Path, s.Definition.Name, s.Points)
		}
		if s.Reference != nil {
			if ri, ok := b.bySeries[seriesKey{name: s.Reference.Name, scope: b.scopeOf[i]}]; ok {
				s.Reference.Series = ri
			}
		}
	}
	if r.Unaligned > 0 {
		r.Warnings = append(r.Warnings, WarnNeedTimezone)
	}
	if r.LongLines > 0 {
		r.Warnings = append(r.Warnings, WarnLongLines)
	}
	return r
}
