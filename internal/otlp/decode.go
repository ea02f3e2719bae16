package otlp

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/dsight/dsight/internal/model"
	"io"
	"runtime"
	"sync"

	"github.com/dsight/dsight/internal/lineread"
)

// Format is how a trace file lays out its records.
type Format string

// Collector exports write FormatJSONL; a pretty-printed document (such as
// the OTLP example trace) is FormatDocument.
const (
	FormatJSONL    Format = "jsonl"
	FormatDocument Format = "document"
)

// DefaultMaxRecordBytes bounds one JSONL record (or a whole pretty-printed
// document). A collector batch of 8,192 lifecycle spans is about 10 MiB.
const DefaultMaxRecordBytes = 256 << 20

// Options bound what a decode reads.
type Options struct {
	// MaxRecordBytes is the longest record accepted; 0 means
	// DefaultMaxRecordBytes.
	MaxRecordBytes int
	// Transient promises that emit keeps nothing of a span past its call
	// (a spill that encodes each span at once): the memory of a record's
	// spans and attributes then serves a later record once the record is
	// emitted, instead of being left to the collector. A JSONL export only.
	Transient bool
}

// FileStats describes one decoded file.
type FileStats struct {
	Path       string
	Format     Format
	Bytes      int64
	Lines      int64
	Records    int64 // JSON documents
	BlankLines int64 // whitespace-only lines between JSONL records
	Spans      int64 // spans decoded, before any de-duplication
	// Replaced counts the strings (names, attribute keys and values, ids)
	// whose invalid UTF-8 or unpaired surrogate escapes were replaced by
	// U+FFFD, as encoding/json does: OTel text is kept, its rewrite counted
	// (the client readers refuse such identifiers instead: they must join
	// byte for byte). FirstReplaced is the line of the first.
	Replaced      int64
	FirstReplaced int64
}

// ErrTruncated marks a file that ends inside a JSON value.
var ErrTruncated = errors.New("truncated record at end of file")

// LineError is a problem at a line of a source file. Its text is
// "path:LINE: message".
type LineError = lineread.LineError

// Decode reads one OTLP/JSON trace file and calls emit for every span, in
// file order, with default options. Spans of a record are emitted only after
// the whole record decoded. The *Span is reused after emit returns.
func Decode(r io.Reader, path string, emit func(*model.Span) error) (FileStats, error) {
	return Options{}.Decode(r, path, emit)
}

// Decode is the package-level Decode with these options.
func (o Options) Decode(r io.Reader, path string, emit func(*model.Span) error) (FileStats, error) {
	limit := o.MaxRecordBytes
	if limit <= 0 {
		limit = DefaultMaxRecordBytes
	}
	f := &fileDecoder{
		path:  path,
		limit: limit,
		emit:  emit,
		s:     newScanner(),
		stats: FileStats{Path: path, Format: FormatJSONL},
	}
	if o.Transient {
		f.reuse = &recordMemory{}
	}
	err := f.run(r)
	return f.stats, err
}

type fileDecoder struct {
	path  string
	limit int
	emit  func(*model.Span) error
	s     *scanner
	stats FileStats
	rec   recordDecoder
	reuse *recordMemory // emitted records' memory, with Options.Transient
}

func (f *fileDecoder) errorf(line int64, format string, args ...any) error {
	return &LineError{Path: f.path, Line: line, Err: fmt.Errorf(format, args...)}
}

func (f *fileDecoder) run(r io.Reader) (err error) {
	var rs *records
	defer func() {
		if rs == nil {
			return
		}
		if err == nil {
			err = rs.finish()
		}
		rs.stop()
	}()
	lines := lineread.New(r, f.limit)
	var head []byte // blank lines before the first record, kept for document mode
	started := false
	for lines.Next() {
		line := lines.Raw()
		f.stats.Lines++
		f.stats.Bytes += int64(len(line))
		trimmed := bytes.TrimSpace(line)
		switch {
		case len(trimmed) == 0:
			f.stats.BlankLines++
			if !started {
				head = append(head, line...)
			}
		case !started && len(trimmed) == 1 && trimmed[0] == '{':
			// A pretty-printed document: its first line is a lone brace.
			f.stats.Format = FormatDocument
			f.stats.BlankLines = 0
			return f.document(append(head, line...), lines.Rest())
		default:
			started = true
			if rs == nil {
				rs = f.startRecords()
			}
			if err := rs.add(line, f.stats.Lines, !lines.Terminated()); err != nil {
				return err
			}
		}
	}
	switch err := lines.Err(); {
	case errors.Is(err, lineread.ErrTooLong):
		return f.errorf(lines.Line(), "record longer than %d bytes", f.limit)
	case err != nil:
		return fmt.Errorf("%s: read: %w", f.path, err)
	}
	return nil
}

func countLines(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

// recordJob is one JSONL record handed to a decoding worker; done
// receives its spans (or its error) when it is decoded.
type recordJob struct {
	line   []byte // owned copy of the line
	lineNo int64
	last   bool
	done   chan recordResult
}

type recordResult struct {
	spans    []model.Span
	err      error
	replaced int                // strings replaced by U+FFFD in the record
	slabs    []model.Attributes // the attribute slabs its spans fill (Options.Transient)
}

// records decodes JSONL records on every core while the caller keeps
// reading: a collector export is hundreds of MB of independent records.
// Results are emitted strictly in file order, so the output, the first
// error and the spans emitted before it are those of a sequential decode.
type records struct {
	f       *fileDecoder
	jobs    chan *recordJob
	pending []*recordJob
	window  int
	// free holds line buffers of emitted records: decoded spans copy
	// their strings, so a buffer is reused once its record is emitted.
	free [][]byte
}

func (f *fileDecoder) startRecords() *records {
	n := runtime.GOMAXPROCS(0)
	jobs := make(chan *recordJob)
	rs := &records{f: f, jobs: jobs, window: 2 * n}
	for range n {
		// The workers range over the channel itself, not the field, which
		// stop clears while they drain.
		go func() {
			s := newScanner()
			rec := recordDecoder{reuse: f.reuse}
			for job := range jobs {
				before := s.Replaced
				spans, err := decodeJSONLRecord(s, &rec, f.path, job.line, job.lineNo, job.last)
				job.done <- recordResult{spans, err, s.Replaced - before, rec.filled}
			}
		}()
	}
	return rs
}

// add queues a record, emitting finished ones when the window is full.
func (rs *records) add(line []byte, lineNo int64, last bool) error {
	var buf []byte
	if n := len(rs.free); n > 0 {
		buf, rs.free = rs.free[n-1], rs.free[:n-1]
	}
	job := &recordJob{line: append(buf[:0], line...), lineNo: lineNo, last: last, done: make(chan recordResult, 1)}
	rs.jobs <- job
	rs.pending = append(rs.pending, job)
	if len(rs.pending) >= rs.window {
		return rs.emitOldest()
	}
	return nil
}

func (rs *records) emitOldest() error {
	job := rs.pending[0]
	rs.pending = rs.pending[1:]
	res := <-job.done
	rs.free = append(rs.free, job.line)
	if res.err != nil {
		return res.err
	}
	rs.f.noteReplaced(res.replaced, job.lineNo)
	err := rs.f.flush(res.spans)
	if m := rs.f.reuse; m != nil {
		m.put(res.spans, res.slabs) // emitted: nothing of them is kept
	}
	return err
}

// noteReplaced counts a record's strings replaced by U+FFFD.
func (f *fileDecoder) noteReplaced(n int, line int64) {
	if n > 0 {
		if f.stats.Replaced == 0 {
			f.stats.FirstReplaced = line
		}
		f.stats.Replaced += int64(n)
	}
}

// finish emits every queued record and stops the workers.
func (rs *records) finish() error {
	defer rs.stop()
	for len(rs.pending) > 0 {
		if err := rs.emitOldest(); err != nil {
			return err
		}
	}
	return nil
}

// stop releases the workers; queued results are dropped.
func (rs *records) stop() {
	if rs.jobs != nil {
		close(rs.jobs)
		rs.jobs = nil
	}
}

// decodeJSONLRecord decodes one line holding one record into fresh spans.
func decodeJSONLRecord(s *scanner, rec *recordDecoder, path string, line []byte, lineNo int64, last bool) ([]model.Span, error) {
	s.Reset(line)
	// The spans outlive the call (they are emitted later, in file order),
	// so each record gets fresh ones, sized like the previous record's. The
	// attribute slab carries over: kept entries are never rewritten, so the
	// next record's spans fill the rest of it. A fresh slab per record cost
	// 4,096 attributes (~300 KB) per one-span line, all of it kept.
	if m := rec.reuse; m != nil {
		// Options.Transient: the record's spans and attributes are its
		// own, taken from emitted records' and given back once emitted.
		spans, slab := m.get(len(rec.spans))
		*rec = recordDecoder{s: s, path: path, line: lineNo, spans: spans, slab: slab, reuse: m}
	} else {
		*rec = recordDecoder{s: s, path: path, line: lineNo, spans: make([]model.Span, 0, len(rec.spans)), slab: rec.slab}
	}
	err := rec.record()
	if err == nil {
		err = s.End()
	}
	if rec.reuse != nil {
		rec.filled = append(rec.filled, rec.slab)
	}
	if err != nil {
		if isSyntaxEOF(err) && last && line[len(line)-1] != '\n' {
			return nil, &LineError{Path: path, Line: lineNo, Err: fmt.Errorf(
				"%w: the last line ends after %d bytes inside a JSON value, without a final newline", ErrTruncated, len(line))}
		}
		return nil, describe(err, path, FormatJSONL, lineNo, 0)
	}
	return rec.spans, nil
}

// describe turns a decode error into a LineError; lineStart is the offset of
// the failing line in the scanner's data.
func describe(err error, path string, format Format, line int64, lineStart int) error {
	var se *syntaxError
	if errors.As(err, &se) {
		if se.EOF && format == FormatJSONL {
			return &LineError{Path: path, Line: line, Err: fmt.Errorf(
				"invalid JSON at column %d: the line ends inside a JSON value", se.Offset-lineStart+1)}
		}
		return &LineError{Path: path, Line: line, Err: fmt.Errorf("invalid JSON at column %d: %s", se.Offset-lineStart+1, se.Msg)}
	}
	return &LineError{Path: path, Line: line, Err: err}
}

// flush emits one decoded record's spans.
func (f *fileDecoder) flush(spans []model.Span) error {
	f.stats.Records++
	for i := range spans {
		f.stats.Spans++
		if err := f.emit(&spans[i]); err != nil {
			return err
		}
	}
	return nil
}

// document decodes the whole file as whitespace-separated JSON documents;
// head holds the lines already read from the start of the file.
func (f *fileDecoder) document(head []byte, rest io.Reader) error {
	tail, err := io.ReadAll(io.LimitReader(rest, int64(f.limit-len(head)+1)))
	if err != nil {
		return fmt.Errorf("%s: read: %w", f.path, err)
	}
	data := append(head, tail...)
	f.stats.Bytes += int64(len(tail))
	if len(data) > f.limit {
		return f.errorf(1, "document longer than %d bytes", f.limit)
	}
	f.stats.Lines = int64(countLines(data))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		f.stats.Lines++
	}
	lines := &lineIndex{data: data, line: 1}
	f.s.Reset(data)
	for {
		if f.s.AtEnd() {
			return nil
		}
		f.rec = recordDecoder{s: f.s, path: f.path, lines: lines, spans: f.rec.spans[:0]}
		before, at := f.s.Replaced, lines.lineAt(f.s.Pos())
		if err := f.rec.record(); err != nil {
			off := f.s.Pos()
			var se *syntaxError
			if errors.As(err, &se) {
				off = se.Offset
			}
			line, start := lines.lineAt(off), lines.start
			if isSyntaxEOF(err) {
				return &LineError{Path: f.path, Line: line, Err: fmt.Errorf(
					"%w: the document ends inside a JSON value after %d bytes", ErrTruncated, len(data))}
			}
			return describe(err, f.path, f.stats.Format, line, start)
		}
		f.noteReplaced(f.s.Replaced-before, at)
		if err := f.flush(f.rec.spans); err != nil {
			return err
		}
	}
}

// lineIndex maps byte offsets, mostly increasing, to 1-based line numbers.
type lineIndex struct {
	data  []byte
	off   int   // offset already counted up to
	line  int64 // line of off
	start int   // offset where that line starts
}

func (x *lineIndex) lineAt(off int) int64 {
	if off >= len(x.data) {
		// The end of the data is on the last line, not after its newline.
		off = len(x.data)
		if off > 0 && x.data[off-1] == '\n' {
			off--
		}
	}
	if off < x.off {
		x.off, x.line, x.start = 0, 1, 0
	}
	for {
		i := bytes.IndexByte(x.data[x.off:off], '\n')
		if i < 0 {
			break
		}
		x.off += i + 1
		x.line++
		x.start = x.off
	}
	x.off = off
	return x.line
}

// recordMemory keeps the span slices and attribute slabs of emitted
// records for the records decoded next (Options.Transient). The decoding
// workers take from it and the emitting reader gives back, so it is
// locked; it keeps at most what the records in flight used.
type recordMemory struct {
	mu    sync.Mutex
	spans [][]model.Span
	slabs []model.Attributes
}

// maxKeptSlabs bounds the slabs kept for reuse (4,096 attributes each).
const maxKeptSlabs = 64

// get returns an empty span slice (room for n spans, if one is kept) and
// an empty attribute slab.
func (m *recordMemory) get(n int) ([]model.Span, model.Attributes) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var spans []model.Span
	if k := len(m.spans); k > 0 {
		spans, m.spans = m.spans[k-1][:0], m.spans[:k-1]
	} else {
		spans = make([]model.Span, 0, n)
	}
	return spans, m.slabLocked(attrSlab)
}

// slab returns an empty slab with room for n attributes.
func (m *recordMemory) slab(n int) model.Attributes {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.slabLocked(n)
}

func (m *recordMemory) slabLocked(n int) model.Attributes {
	for k := len(m.slabs) - 1; k >= 0; k-- {
		if s := m.slabs[k]; cap(s) >= n {
			m.slabs = append(m.slabs[:k], m.slabs[k+1:]...)
			return s[:0]
		}
	}
	return make(model.Attributes, 0, max(attrSlab, n))
}

// put gives back an emitted record's spans and slabs.
func (m *recordMemory) put(spans []model.Span, slabs []model.Attributes) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cap(spans) > 0 && len(m.spans) < maxKeptSlabs {
		m.spans = append(m.spans, spans)
	}
	for _, s := range slabs {
		if cap(s) > 0 && len(m.slabs) < maxKeptSlabs {
			m.slabs = append(m.slabs, s)
		}
	}
}
