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
// series' files depend only on its own payload, so the series are staged
// on several goroutines; what the writer records (entries, descriptors,
// the first error) is then taken in series order, so the report and the
// manifest are those of the sequential writer, byte for byte.

// stagedMetric is what staging one series' summary produced.
type stagedMetric struct {
	shard   model.Shard
	entries []FileEntry
	scripts [][]byte // the entries' bytes, kept only for an in-memory stage
	err     error
}

// stageMetricShards is addMetricShards on at most workers goroutines.
func stageMetricShards(files *stageFiles, d *model.Dataset, workers int) (*model.Dataset, error) {
	if len(d.Metrics) == 0 {
		return d, nil
	}
	if files.err != nil {
		return nil, files.err
	}
	staged := make([]stagedMetric, len(d.Metrics))
	// Two series with equal summaries share their files; one of them
	// writes each, so no file is written by two goroutines at once.
	var claimed sync.Map
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range max(1, min(workers, len(d.Metrics))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(d.Metrics) {
					return
				}
				if staged[i] = stageMetric(files, &claimed, &d.Metrics[i]); staged[i].err != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	// Series are taken in order, so every series before the first failing
	// one was staged, and that one names the error.
	out := *d
	out.Metrics = make([]model.MetricSeries, len(d.Metrics))
	for i := range staged {
		s := &staged[i]
		if s.err != nil {
			files.err = s.err
			return nil, s.err
		}
		for k, e := range s.entries {
			if files.mem != nil {
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

// stageMetric writes the detail scripts of one series' summary (or, for an
// in-memory stage, keeps them) and says what it wrote. It changes nothing
// in files, so goroutines may call it at once.
func stageMetric(files *stageFiles, claimed *sync.Map, m *model.MetricSeries) (s stagedMetric) {
	if m.Summary == nil {
		s.err = fmt.Errorf("metric series %d (%s) has no summary", m.ID, m.Name)
		return s
	}
	gz, err := m.Summary.Payload.Bytes()
	if err != nil {
		s.err = fmt.Errorf("metric series %d (%s): %w", m.ID, m.Name, err)
		return s
	}
	s.shard, s.err = compressedShardParts(gz, m.Summary.DecodedBytes, func(p string, script []byte) error {
		s.entries = append(s.entries, fileEntry(p, script))
		if files.mem != nil {
			s.scripts = append(s.scripts, script)
			return nil
		}
		if _, taken := claimed.LoadOrStore(p, true); taken {
			return nil
		}
		if err := files.write(p, script); err != nil {
			return fmt.Errorf("metric series %d (%s): %w", m.ID, m.Name, err)
		}
		return nil
	})
	return s
}

// compressedShardParts cuts a payload compressed with shard.Compress into
// detail scripts of at most PartBytes of payload, each named by the hash
// of its content, hands each to put with its slash path, and describes the
// shard. It stops at put's first error.
func compressedShardParts(gz []byte, decodedBytes int, put func(p string, script []byte) error) (model.Shard, error) {
	sh := model.Shard{ID: shard.ID(gz), Bytes: len(gz), DecodedBytes: decodedBytes}
	for off := 0; off < len(gz); off += PartBytes {
		part := gz[off:min(off+PartBytes, len(gz))]
		id := shard.ID(part)
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
