package report

import (
	"io/fs"
	"sync"

	"github.com/dsight/dsight/internal/model"
)

// A 100M-sample capture's summaries are ~5,900 detail scripts. Creating
// them after the import ran on one goroutine while the other core idled:
// 0.7-2.1 CPU-s of the kernel's file creates at the end of the build (ext4
// without a journal scans the inodes deleted in the last minutes at every
// create). A Stage is opened before the import, and the import hands it
// each summary as soon as it is compressed (StageSummary): its scripts are
// prepared on the summarizing goroutine and created by one goroutine of
// the stage's own, while the other series are still being summarized.
// The report writer then takes each such series' entries and descriptor
// as they were recorded, so the report is the one Write makes, byte for
// byte.

// stagedAhead bounds the summaries handed over and not yet written, so a
// summarizing goroutine waits rather than memory growing when the creates
// are the slower side.
const stagedAhead = 64

// Stage is a report's staging directory opened before its dataset exists.
// Begin opens it; Write renders the dataset into it and publishes it;
// Close removes it unless Write published it, and must be called.
type Stage struct {
	dir     string // the report's directory (absolute)
	files   *stageFiles
	release func()
	queue   chan *earlySummary
	wrote   chan struct{} // closed when the file goroutine has ended
	closed  sync.Once
}

// Begin opens a stage for the report at dir, as Write does before it
// renders: checked against the run at run, with the stages builds left
// behind removed and the lock held.
func Begin(dir, run string) (*Stage, error) {
	dir, files, release, err := openStage(dir, run)
	if err != nil {
		return nil, err
	}
	s := &Stage{dir: dir, files: files, release: release,
		queue: make(chan *earlySummary, stagedAhead), wrote: make(chan struct{})}
	go s.writeEarly()
	return s, nil
}

// earlySummary is a summary handed to a Stage: the Blob the series keeps
// (reading the same bytes as the payload it wraps) and what staging its
// scripts recorded, valid once done is closed.
type earlySummary struct {
	model.Blob
	stage   *Stage
	shard   model.Shard
	entries []FileEntry
	scripts [][]byte // until written
	err     error
	done    chan struct{}
}

// StageSummary is the Stage's metrics.SummaryStager. Goroutines may call it
// at once, until Write or Close is called.
func (s *Stage) StageSummary(payload model.Blob, gz []byte, decodedBytes int) model.Blob {
	e := &earlySummary{Blob: payload, stage: s, done: make(chan struct{})}
	e.shard, e.err = compressedShardParts(gz, decodedBytes, func(p string, script []byte) error {
		e.entries = append(e.entries, fileEntry(p, script))
		e.scripts = append(e.scripts, script)
		return nil
	})
	s.queue <- e
	return e
}

// writeEarly creates the scripts of the summaries handed over, in the
// order they came, on one goroutine: two creating files in one directory
// were slower than one (metricwrite.go). A script two summaries share is
// written once; each summary keeps its own first write error.
func (s *Stage) writeEarly() {
	defer close(s.wrote)
	written := map[string]bool{}
	for e := range s.queue {
		for k, f := range e.entries {
			if e.err != nil || written[f.Path] {
				continue
			}
			if err := s.files.write(f.Path, e.scripts[k]); err != nil {
				e.err = err
				continue
			}
			written[f.Path] = true
		}
		e.scripts = nil
		close(e.done)
	}
}

// early is the summary m was handed to files' Stage as, if it was.
func early(files *stageFiles, m *model.MetricSeries) (*earlySummary, bool) {
	if m.Summary == nil {
		return nil, false
	}
	e, ok := m.Summary.Payload.(*earlySummary)
	return e, ok && e.stage.files == files
}

// stopEarly ends the file goroutine once it has written what it was given.
func (s *Stage) stopEarly() {
	s.closed.Do(func() {
		close(s.queue)
		<-s.wrote
	})
}

// Write renders d into the stage and publishes it at the Stage's
// directory, as the package's Write does. The summaries handed to
// StageSummary are already staged; no more may be handed over.
func (s *Stage) Write(d *model.Dataset, assets fs.FS, opt Options) (*Manifest, error) {
	s.stopEarly()
	if err := checkTarget(s.dir, d.Meta.SourceRoot); err != nil {
		return nil, err
	}
	return writeStaged(d, assets, s.dir, s.files, opt)
}

// Close removes the stage (the previous report, once Write has published)
// and releases its lock.
func (s *Stage) Close() {
	s.stopEarly()
	s.release()
}
