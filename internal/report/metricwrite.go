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

// A capture's summaries are thousands of small payloads (5,894 series of
// ~9 KB for a 100M-sample capture, ~54 MB): a detail script each cost a
// file create each, 0.4 ms of kernel time apiece on this machine's ext4
// after a report was removed (2-4 s a build). So neighbouring summaries, in
// series order, share pack scripts (shard.Pack16) of up to MetricPackBytes
// of payload and PackParts summaries, as the Nsight chunks and evidence
// shards do (packs.go); a summary larger than PackBytes keeps scripts of
// its own. Each summary stays its own shard, named and checked by its own
// hash, and a chart's series, neighbours in the catalog, load from one or
// two scripts.
//
// The packs are planned from the summaries' sizes alone, then prepared
// (read back from the spool, hashed, enveloped) on one goroutine per core
// and written by a single goroutine in order: creating files in one
// directory from two goroutines was slower than from one. What the writer
// records is taken in pack order, so the report is the sequential packer's
// byte for byte (TestParallelMetricShardsMatchSequential).

// MetricPackBytes bounds the summaries' payload one pack script holds: a
// MiB. A chart loads the packs of the summaries it draws when it draws
// them, so a pack stays as small as the scripts a chart loaded before
// summaries were packed.
const MetricPackBytes = 1 << 20

// groupsAhead bounds the packs prepared and not yet written (up to a MiB
// each), so memory does not grow with the series while the writes are the
// slower side.
const groupsAhead = 8

// metricGroup is a run of series [first, end) written together: a pack, or
// one summary with scripts of its own (alone).
type metricGroup struct {
	first, end int
	alone      bool
	shards     []model.Shard // the members' descriptors, in order
	entries    []FileEntry
	scripts    [][]byte // the entries' bytes until written; kept for an in-memory stage
	err        error
	done       chan struct{} // closed once prepared
}

// planMetricGroups cuts d's series into packs by their summaries' sizes
// (packFill, the packer's rule). A series without a summary is a group of
// its own, which fails when prepared: the first failure in series order is
// the one reported.
func planMetricGroups(d *model.Dataset) []metricGroup {
	var groups []metricGroup
	fill := packFill{limit: MetricPackBytes}
	for i := range d.Metrics {
		var alone, starts bool
		if m := &d.Metrics[i]; m.Summary == nil {
			fill = packFill{limit: MetricPackBytes}
			alone = true
		} else {
			alone, starts = fill.place(m.Summary.Payload.Len())
		}
		if alone || starts || len(groups) == 0 || groups[len(groups)-1].alone {
			groups = append(groups, metricGroup{first: i, alone: alone, done: make(chan struct{})})
		}
		groups[len(groups)-1].end = i + 1
	}
	return groups
}

// stageMetricShards is addMetricShards with at most workers goroutines
// preparing packs.
func stageMetricShards(files *stageFiles, d *model.Dataset, workers int) (*model.Dataset, error) {
	if len(d.Metrics) == 0 {
		return d, nil
	}
	if files.err != nil {
		return nil, files.err
	}
	groups := planMetricGroups(d)
	stop := make(chan struct{}) // closed at the first failure
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	// A slot is taken before a group is picked and given back once its
	// files are written; an in-memory stage keeps every script anyway.
	slots := make(chan struct{}, groupsAhead)
	onDisk := files.mem == nil
	var next atomic.Int64
	var prep sync.WaitGroup
	for range max(1, min(workers, len(groups))) {
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
				k := int(next.Add(1) - 1)
				if k >= len(groups) {
					return
				}
				// Groups are picked in order, so every group before a
				// failing one is prepared, and the writer reaches it.
				prepareGroup(&groups[k], d)
				if groups[k].err != nil {
					halt()
				}
				close(groups[k].done)
			}
		}()
	}
	if onDisk {
		writeMetricGroups(files, d, groups, slots, halt)
		// Every group is written or one failed: a goroutine still waiting
		// for a slot has nothing left to pick.
		halt()
	}
	prep.Wait()
	out := *d
	out.Metrics = make([]model.MetricSeries, len(d.Metrics))
	for k := range groups {
		g := &groups[k]
		if g.err != nil {
			files.err = g.err
			return nil, g.err
		}
		for j, e := range g.entries {
			if !onDisk {
				files.mem[e.Path] = g.scripts[j]
			}
			files.entries = append(files.entries, e)
		}
		for i := g.first; i < g.end; i++ {
			m := d.Metrics[i]
			m.Shard = &model.MetricShard{Shard: g.shards[i-g.first], MetricBounds: m.Summary.MetricBounds}
			m.Summary = nil
			out.Metrics[i] = m
		}
	}
	return &out, nil
}

// writeMetricGroups writes the prepared scripts of each group in order,
// until the first group that failed to prepare or to write; a script two
// groups share is written once.
func writeMetricGroups(files *stageFiles, d *model.Dataset, groups []metricGroup, slots chan struct{}, halt func()) {
	written := map[string]bool{}
	for k := range groups {
		g := &groups[k]
		<-g.done
		if g.err != nil {
			return
		}
		for j, e := range g.entries {
			if written[e.Path] {
				continue
			}
			if err := files.write(e.Path, g.scripts[j]); err != nil {
				g.err = fmt.Errorf("%s: %w", g.names(d), err)
				halt()
				return
			}
			written[e.Path] = true
		}
		g.scripts = nil
		<-slots
	}
}

// names names the group's series for an error: the first, and how many
// more share its pack.
func (g *metricGroup) names(d *model.Dataset) string {
	m := &d.Metrics[g.first]
	if g.end-g.first == 1 {
		return fmt.Sprintf("metric series %d (%s)", m.ID, m.Name)
	}
	return fmt.Sprintf("metric series %d (%s) and the %d after it in its pack", m.ID, m.Name, g.end-g.first-1)
}

// prepareGroup reads a group's summaries and renders its scripts into g.
// It changes nothing shared, so goroutines may call it at once.
func prepareGroup(g *metricGroup, d *model.Dataset) {
	n := g.end - g.first
	g.shards = make([]model.Shard, n)
	ids, gzs := make([]string, n), make([][]byte, n)
	for k := range n {
		m := &d.Metrics[g.first+k]
		if m.Summary == nil {
			g.err = fmt.Errorf("metric series %d (%s) has no summary", m.ID, m.Name)
			return
		}
		gz, err := m.Summary.Payload.Bytes()
		if err != nil {
			g.err = fmt.Errorf("metric series %d (%s): %w", m.ID, m.Name, err)
			return
		}
		gzs[k] = gz
	}
	if g.alone {
		m := &d.Metrics[g.first]
		g.shards[0], g.err = compressedShardParts(gzs[0], m.Summary.DecodedBytes, func(p string, script []byte) error {
			g.entries = append(g.entries, fileEntry(p, script))
			g.scripts = append(g.scripts, script)
			return nil
		})
		return
	}
	for k, gz := range gzs {
		ids[k] = shard.ID(gz)
	}
	p, script := packScript(ids, gzs)
	g.entries, g.scripts = []FileEntry{fileEntry(p, script)}, [][]byte{script}
	for k, gz := range gzs {
		g.shards[k] = model.Shard{ID: ids[k], Bytes: len(gz), DecodedBytes: d.Metrics[g.first+k].Summary.DecodedBytes,
			Parts: []model.ShardPart{{ID: ids[k], Path: p, Bytes: len(gz), Pack: true}}}
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
