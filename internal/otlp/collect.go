package otlp

import (
	"errors"
	"fmt"
	"github.com/dsight/dsight/internal/model"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
)

// ErrConflictingDuplicate marks two spans with the same trace and span id
// but different content.
var ErrConflictingDuplicate = errors.New("conflicting duplicate span")

// FileReport is what one trace file contributed.
type FileReport struct {
	FileStats
	// Collector is the directory name of an otel/<dir>/traces.jsonl file
	// ("" for otel/traces.jsonl). It names a collector, never a host.
	Collector string
	// Empty reports a file that recorded no spans (including a zero-byte
	// file).
	Empty      bool
	Invalid    int64 // spans ending before they start
	Duplicates int64 // identical copies of spans seen earlier
}

// Duplicate is an identical copy of a span that was dropped.
type Duplicate struct {
	Dropped model.SpanRef
	Kept    model.SpanRef
}

// Result is the span evidence of a set of trace files.
type Result struct {
	Files []FileReport
	// Spans are unique, valid spans in file order.
	Spans []model.Span
	// Invalid are spans whose end precedes their start; they are kept
	// out of Spans.
	Invalid    []model.Span
	Duplicates []Duplicate
}

// Collector accumulates spans across trace files, dropping identical
// copies (a span exported by two collectors) and failing on two different
// spans that share a trace and span id.
type Collector struct {
	Options Options
	res     Result
	seen    map[spanKey]spanLoc
}

type spanKey struct{ trace, span string }

type spanLoc struct {
	invalid bool
	i       int
}

// Add decodes one file. After an error the Collector is as it was before
// the call.
func (c *Collector) Add(name string, r io.Reader) error {
	if c.seen == nil {
		c.seen = make(map[spanKey]spanLoc)
	}
	nSpans, nInvalid, nDups := len(c.res.Spans), len(c.res.Invalid), len(c.res.Duplicates)
	var added []spanKey
	report := FileReport{Collector: collectorDir(name)}
	stats, err := c.Options.Decode(r, name, func(sp *model.Span) error {
		key := spanKey{sp.TraceID, sp.SpanID}
		if loc, ok := c.seen[key]; ok {
			kept := c.at(loc)
			if diff := contentDiff(kept, sp); diff != "" {
				return &LineError{Path: sp.Ref.Path, Line: sp.Ref.Line, Err: fmt.Errorf(
					"%w: trace %q span %q: %s differs from the copy at %s",
					ErrConflictingDuplicate, sp.TraceID, sp.SpanID, diff, kept.Ref)}
			}
			c.res.Duplicates = append(c.res.Duplicates, Duplicate{Dropped: sp.Ref, Kept: kept.Ref})
			report.Duplicates++
			return nil
		}
		added = append(added, key)
		if sp.EndNS < sp.StartNS {
			c.seen[key] = spanLoc{invalid: true, i: len(c.res.Invalid)}
			c.res.Invalid = append(c.res.Invalid, *sp)
			report.Invalid++
			return nil
		}
		c.seen[key] = spanLoc{i: len(c.res.Spans)}
		if len(c.res.Spans) == cap(c.res.Spans) {
			// Double: append's gentler growth for large slices copies
			// a run's spans many times over.
			c.res.Spans = slices.Grow(c.res.Spans, max(len(c.res.Spans), 1024))
		}
		c.res.Spans = append(c.res.Spans, *sp)
		return nil
	})
	if err != nil {
		for _, key := range added {
			delete(c.seen, key)
		}
		clear(c.res.Spans[nSpans:])
		c.res.Spans = c.res.Spans[:nSpans]
		c.res.Invalid = c.res.Invalid[:nInvalid]
		c.res.Duplicates = c.res.Duplicates[:nDups]
		return err
	}
	report.FileStats = stats
	report.Empty = stats.Spans == 0
	c.res.Files = append(c.res.Files, report)
	return nil
}

// AddFile opens name in fsys and decodes it.
func (c *Collector) AddFile(fsys fs.FS, name string) error {
	f, err := fsys.Open(name)
	if err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	defer f.Close()
	return c.Add(name, f)
}

// Result returns what was collected so far. The Collector keeps sharing it.
func (c *Collector) Result() *Result { return &c.res }

func (c *Collector) at(loc spanLoc) *model.Span {
	if loc.invalid {
		return &c.res.Invalid[loc.i]
	}
	return &c.res.Spans[loc.i]
}

// contentDiff names the first recorded field in which two spans with the
// same ids differ, or returns "". Evidence, resource decorations other than
// service.name, and scope are not compared: collectors may add their own.
func contentDiff(a, b *model.Span) string {
	switch {
	case a.Name != b.Name:
		return "name"
	case a.ParentSpanID != b.ParentSpanID:
		return "parentSpanId"
	case a.StartNS != b.StartNS:
		return "startTimeUnixNano"
	case a.EndNS != b.EndNS:
		return "endTimeUnixNano"
	case a.Kind != b.Kind:
		return "kind"
	case a.Status != b.Status:
		return "status"
	case a.TraceState != b.TraceState:
		return "traceState"
	case !a.Attrs.Equal(b.Attrs):
		return "attributes"
	}
	sa, oka := a.Resource.ServiceName()
	sb, okb := b.Resource.ServiceName()
	if sa != sb || oka != okb {
		return "service.name"
	}
	return ""
}

// collectorDir returns <dir> for a path ending in otel/<dir>/traces.jsonl.
func collectorDir(name string) string {
	dir := path.Dir(filepath.ToSlash(name))
	if path.Base(path.Dir(dir)) == "otel" && path.Base(dir) != "otel" {
		return path.Base(dir)
	}
	return ""
}

// Discover lists the trace files of a log directory: otel/traces.jsonl and
// otel/*/traces.jsonl, sorted.
func Discover(fsys fs.FS) ([]string, error) {
	var out []string
	for _, pattern := range []string{"otel/traces.jsonl", "otel/*/traces.jsonl"} {
		matches, err := fs.Glob(fsys, pattern)
		if err != nil {
			return nil, fmt.Errorf("otlp: discover: %w", err)
		}
		for _, m := range matches {
			if info, err := fs.Stat(fsys, m); err == nil && !info.IsDir() {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// ReadAll discovers and decodes every trace file of a log directory.
func ReadAll(fsys fs.FS, opts Options) (*Result, error) {
	names, err := Discover(fsys)
	if err != nil {
		return nil, err
	}
	c := &Collector{Options: opts}
	for _, name := range names {
		if err := c.AddFile(fsys, name); err != nil {
			return nil, err
		}
	}
	return c.Result(), nil
}
