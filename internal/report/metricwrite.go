package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// A capture's summaries are thousands of detail scripts (5,894 series for
// a 100M-sample capture, ~60 MB): reading each back from the summary
// spool, hashing it, rendering its envelope and writing its file took
// 1.2-1.3 s on one core after the summaries had kept both busy. Each
// series' scripts depend only on its own payload, so they are prepared on
// one goroutine per core, while a single goroutine creates the files in
// series order: creating a file takes its directory's lock, and two
// goroutines creating files in one directory were slower than one (6,000
// files: 3.6-8.2 s against 2.0-6.1 s, load 16). What the writer records
// (entries, descriptors, the first error) is taken in series order, so the
// report and the manifest are those of the sequential writer, byte for
// byte. A series whose summary was handed to the report's Stage during the
// import (earlystage.go) has its files already: only what staging it
// recorded is taken here.

// preparedAhead bounds the series whose scripts are prepared and not yet
// written (~10 KB each for a capture), so memory does not grow with the
// series while the file writes are the slower side.
const preparedAhead = 64

// stagedMetric is what staging one series' summary produced.
type stagedMetric struct {
	shard   model.Shard
	entries []FileEntry
	scripts [][]byte // the entries' bytes until written; kept for an in-memory stage
	early   bool     // staged before the write (earlystage.go): its files exist
	err     error
	done    chan struct{} // closed once prepared
}

// stageMetricShards is addMetricShards with at most workers goroutines
// preparing scripts.
func stageMetricShards(files *stageFiles, d *model.Dataset, workers int) (*model.Dataset, error) {
	if len(d.Metrics) == 0 {
		return d, nil
	}
	if files.err != nil {
		return nil, files.err
	}
	staged := make([]stagedMetric, len(d.Metrics))
	for i := range staged {
		staged[i].done = make(chan struct{})
	}
	stop := make(chan struct{}) // closed at the first failure
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	// A slot is taken before a series is picked and given back once its
	// files are written; an in-memory stage keeps every script anyway.
	slots := make(chan struct{}, preparedAhead)
	onDisk := files.mem == nil
	var next atomic.Int64
	var prep sync.WaitGroup
	for range max(1, min(workers, len(d.Metrics))) {
		prep.Add(1)
		go func() {
			defer prep.Done()
			for {
				if onDisk {
					select {
					case slots <- struct{}{}:
					case <-stop:
						return
					}
				}
				select {
				case <-stop:
					return
				default:
				}
				i := int(next.Add(1) - 1)
				if i >= len(d.Metrics) {
					return
				}
				// Series are picked in order, so every series before a
				// failing one is prepared, and the writer reaches it.
				if e, ok := early(files, &d.Metrics[i]); ok {
					takeEarly(&staged[i], e, &d.Metrics[i])
				} else {
					prepareMetric(&staged[i], &d.Metrics[i])
				}
				if staged[i].err != nil {
					halt()
				}
				close(staged[i].done)
			}
		}()
	}
	if onDisk {
		writeMetricScripts(files, d, staged, slots, halt)
		// Every series is written or one failed: a goroutine still waiting
		// for a slot has nothing left to pick.
		halt()
	}
	prep.Wait()
	out := *d
	out.Metrics = make([]model.MetricSeries, len(d.Metrics))
	for i := range staged {
		s := &staged[i]
		if s.err != nil {
			files.err = s.err
			return nil, s.err
		}
		for k, e := range s.entries {
			if !onDisk {
				files.mem[e.Path] = s.scripts[k]
			}
			files.entries = append(files.entries, e)
		}
		m := d.Metrics[i]
		m.Shard = &model.MetricShard{Shard: s.shard, MetricBounds: m.Summary.MetricBounds}
		m.Summary = nil
		out.Metrics[i] = m
	}
	return &out, nil
}

// writeMetricScripts writes the prepared scripts of each series in series
// order, until the first series that failed to prepare or to write; a
// script two series share is written once.
func writeMetricScripts(files *stageFiles, d *model.Dataset, staged []stagedMetric, slots chan struct{}, halt func()) {
	written := map[string]bool{}
	for i := range staged {
		s := &staged[i]
		<-s.done
		if s.err != nil {
			return
		}
		for k, e := range s.entries {
			if s.early || written[e.Path] {
				continue
			}
			if err := files.write(e.Path, s.scripts[k]); err != nil {
				s.err = fmt.Errorf("metric series %d (%s): %w", d.Metrics[i].ID, d.Metrics[i].Name, err)
				halt()
				return
			}
			written[e.Path] = true
		}
		s.scripts = nil
		<-slots
	}
}

// prepareMetric reads one series' summary and renders its detail scripts
// into s. It changes nothing shared, so goroutines may call it at once.
func prepareMetric(s *stagedMetric, m *model.MetricSeries) {
	if m.Summary == nil {
		s.err = fmt.Errorf("metric series %d (%s) has no summary", m.ID, m.Name)
		return
	}
	gz, err := m.Summary.Payload.Bytes()
	if err != nil {
		s.err = fmt.Errorf("metric series %d (%s): %w", m.ID, m.Name, err)
		return
	}
	s.shard, s.err = compressedShardParts(gz, m.Summary.DecodedBytes, func(p string, script []byte) error {
		s.entries = append(s.entries, fileEntry(p, script))
		s.scripts = append(s.scripts, script)
		return nil
	})
}

// takeEarly records in s what staging e, m's summary, recorded once its
// files are written.
func takeEarly(s *stagedMetric, e *earlySummary, m *model.MetricSeries) {
	<-e.done
	s.shard, s.entries, s.early = e.shard, e.entries, true
	if e.err != nil {
		s.err = fmt.Errorf("metric series %d (%s): %w", m.ID, m.Name, e.err)
	}
}

// compressedShardParts cuts a payload compressed with shard.Compress into
// detail scripts of at most PartBytes of payload, each named by the hash
// of its content, hands each to put with its slash path, and describes the
// shard. It stops at put's first error.
func compressedShardParts(gz []byte, decodedBytes int, put func(p string, script []byte) error) (model.Shard, error) {
	sh := model.Shard{ID: shard.ID(gz), Bytes: len(gz), DecodedBytes: decodedBytes}
	for off := 0; off < len(gz); off += PartBytes {
		part := gz[off:min(off+PartBytes, len(gz))]
		id := sh.ID // a payload of one part is that part
		if len(part) < len(gz) {
			id = shard.ID(part)
		}
		p := path.Join(DetailDir, id+".js")
		if err := put(p, shard.Envelope16(id, part)); err != nil {
			return model.Shard{}, err
		}
		sh.Parts = append(sh.Parts, model.ShardPart{ID: id, Path: p, Bytes: len(part)})
	}
	return sh, nil
}

// write writes one file, named by slash path, into the stage directory.
// It changes nothing in f, so goroutines may call it at once. Its
// directory is made only when the file cannot be created without it: the
// stage holds thousands of files in a few directories, and a stat of the
// directory before each was one system call a file for nothing.
func (f *stageFiles) write(name string, b []byte) error {
	p := filepath.Join(f.dir, filepath.FromSlash(name))
	err := os.WriteFile(p, b, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("stage report: %w", err)
		}
		err = os.WriteFile(p, b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("stage report: %w", err)
	}
	return nil
}

// fileEntry is the manifest's entry for a file of those bytes.
func fileEntry(name string, b []byte) FileEntry {
	sum := sha256.Sum256(b)
	return FileEntry{Path: name, Bytes: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
}
