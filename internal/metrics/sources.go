package metrics

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/dsight/dsight/internal/logmetric"
	"github.com/dsight/dsight/internal/sourcename"
	"github.com/dsight/dsight/internal/tachometer"
)

// Sources are a run's metric sources as a caller that walks the run once
// and opens every file once (the importer) finds and reads them: the
// capture, whose files it opens and which is inspected once, and the log
// metrics of every worker log, read in the caller's one pass over the log.
// Read takes them through Options.Sources.
type Sources struct {
	capture *tachometer.Capture
	logs    []*logmetric.Result
	err     error // the first log-metric read error, reported by Envelope and Read
}

// File is an open file as FindCapture's open returns it; *os.File is one.
type File interface {
	io.ReadSeeker
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// FindCapture finds the capture at the explicit --metrics path, or else
// below logDir/tachometer/local among files (every regular file below
// logDir, absolute, from the caller's walk), and returns its files in read
// order. open opens them, for their inspection and for their read; each call
// needs its own read position.
func (s *Sources) FindCapture(logDir string, files []string, explicit string, open func(path string) (File, error)) ([]string, error) {
	var (
		c   *tachometer.Capture
		err error
	)
	root := filepath.Join(logDir, filepath.FromSlash(tachometer.DefaultRoot))
	switch {
	case explicit != "":
		abs, aerr := filepath.Abs(explicit)
		if aerr != nil {
			return nil, aerr
		}
		c, err = tachometer.Discover(abs, true)
	default:
		var below []string
		for _, f := range files {
			if f == root { // not a directory: the rules of a single file
				below = nil
				c, err = tachometer.Discover(root, false)
				break
			}
			if strings.HasPrefix(f, root+string(filepath.Separator)) {
				below = append(below, f)
			}
		}
		if c == nil && err == nil {
			c, err = tachometer.Assemble(root, below)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	c.Open = func(path string) (tachometer.Handle, error) { return open(path) }
	s.capture = c
	paths := make([]string, len(c.Files))
	for i, f := range c.Files {
		paths[i] = f.Path
	}
	return paths, nil
}

// ReadLog reads the log metrics of one worker log (named by the shared
// grammar as id) from r, the whole file in order, with the generators;
// points keep absolute times until Read frames them. A read error is
// returned and also kept for Envelope and Read, which report it where the
// metrics are built.
func (s *Sources) ReadLog(r io.Reader, path string, sourceID int, id sourcename.Identity, loc *time.Location) error {
	res, err := logmetric.Read(r, logmetric.SourceInfo{Path: path, SourceID: sourceID, Worker: id.Worker, Host: id.Host, Role: id.Role}, loc, Generators()...)
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return err
	}
	s.logs = append(s.logs, res)
	return nil
}

// Envelope is the time range the metric sources themselves record, for runs
// without a client export: every capture row's timestamp_ns, and worker-log
// observations that carry a non-setting value (their timestamp plus its
// resolution; configuration alone never creates an envelope). ok is false
// when there is none. Nothing is read again: the capture's inspection is
// the one Read reuses, the logs were read by ReadLog.
func (s *Sources) Envelope() (lo, hi int64, ok bool, err error) {
	add := func(a, b int64) {
		if b < a {
			return
		}
		if !ok {
			lo, hi, ok = a, b, true
			return
		}
		lo, hi = min(lo, a), max(hi, b)
	}
	if c := s.capture; c != nil && len(c.Files) > 0 {
		a, b, found, err := c.TimeRange()
		if err != nil {
			return 0, 0, false, err
		}
		if found {
			add(a, b)
		}
	}
	if s.err != nil {
		return 0, 0, false, s.err
	}
	for _, r := range s.logs {
		if r.Window != nil {
			add(r.Window.StartNS, r.Window.EndNS)
		}
	}
	return lo, hi, ok, nil
}
