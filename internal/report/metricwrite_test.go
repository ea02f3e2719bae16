package report

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/model"
	"github.com/dsight/dsight/internal/shard"
)

// manyMetrics is a dataset of n series whose summaries are compressed
// payloads of varied sizes: one spans several parts, and a few series
// repeat another's payload (equal summaries share their files).
func manyMetrics(t testing.TB, n int) *model.Dataset {
	t.Helper()
	d := dataset("job")
	rng := rand.New(rand.NewPCG(3, 4))
	var prev []byte
	for i := range n {
		var raw []byte
		switch {
		case i == 5:
			raw = make([]byte, 5*PartBytes/2) // incompressible: three parts
			for k := range raw {
				raw[k] = byte(rng.Uint32())
			}
		case i%17 == 9:
			raw = prev
		default:
			raw = bytes.Repeat([]byte(fmt.Sprintf("series %d value %d;", i, rng.IntN(1000))), 1+rng.IntN(4000))
		}
		prev = raw
		gz, err := shard.Compress(raw)
		if err != nil {
			t.Fatal(err)
		}
		d.Metrics = append(d.Metrics, model.MetricSeries{
			ID: i, Name: fmt.Sprintf("m%d", i%7), Temporal: "sample", SourceIDs: []int{0},
			Summary: &model.MetricSummary{Payload: model.InMemory(gz), DecodedBytes: len(raw),
				MetricBounds: model.MetricBounds{Chunks: 1 + i%3, FirstNS: int64(i), LastNS: int64(i * 10)}},
		})
	}
	return d
}

// sequentialMetricShards is the writer the parallel one must equal: each
// series in order, through the packer the Nsight chunks and evidence
// shards are packed by.
func sequentialMetricShards(files *stageFiles, d *model.Dataset) (*model.Dataset, error) {
	out := *d
	out.Metrics = make([]model.MetricSeries, len(d.Metrics))
	shards := make([]model.Shard, len(d.Metrics))
	pk := &packer{files: files, limit: MetricPackBytes}
	for i, m := range d.Metrics {
		gz, err := m.Summary.Payload.Bytes()
		if err != nil {
			return nil, err
		}
		pk.add(gz, m.Summary.DecodedBytes, &shards[i])
	}
	pk.flush()
	for i, m := range d.Metrics {
		m.Shard = &model.MetricShard{Shard: shards[i], MetricBounds: m.Summary.MetricBounds}
		m.Summary = nil
		out.Metrics[i] = m
	}
	return &out, files.err
}

// readTree maps every file under dir (slash paths) to its bytes.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The parallel writer stages the sequential writer's files, byte for
// byte, records the same entries in the same order and gives every series
// the same descriptor, for any number of goroutines, on disk and in memory.
func TestParallelMetricShardsMatchSequential(t *testing.T) {
	d := manyMetrics(t, 120)
	seqDir := t.TempDir()
	seq := &stageFiles{dir: seqDir}
	want, err := sequentialMetricShards(seq, d)
	if err != nil {
		t.Fatal(err)
	}
	wantTree := readTree(t, seqDir)
	if len(want.Metrics[5].Shard.Parts) < 3 {
		t.Fatalf("series 5 has %d parts, want several", len(want.Metrics[5].Shard.Parts))
	}
	for _, workers := range []int{1, 2, 3, 8, 200} {
		dir := t.TempDir()
		files := &stageFiles{dir: dir}
		got, err := stageMetricShards(files, d, workers)
		if err != nil || files.err != nil {
			t.Fatalf("%d workers: %v, %v", workers, err, files.err)
		}
		if !reflect.DeepEqual(got.Metrics, want.Metrics) {
			t.Errorf("%d workers: descriptors differ from the sequential writer's", workers)
		}
		if !reflect.DeepEqual(files.entries, seq.entries) {
			t.Errorf("%d workers: entries differ from the sequential writer's", workers)
		}
		if gotTree := readTree(t, dir); !reflect.DeepEqual(gotTree, wantTree) {
			t.Errorf("%d workers: %d files staged, the sequential writer %d, or their bytes differ", workers, len(gotTree), len(wantTree))
		}
		mem := &stageFiles{mem: map[string][]byte{}}
		if _, err := stageMetricShards(mem, d, workers); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(mem.mem, wantTree) || !reflect.DeepEqual(mem.entries, seq.entries) {
			t.Errorf("%d workers: the in-memory stage differs from the sequential writer's files", workers)
		}
	}
	if d.Metrics[0].Summary == nil || d.Metrics[0].Shard != nil {
		t.Error("the writer changed its input dataset")
	}
}

// A file that cannot be written fails the write naming its series (those
// of the first failing pack in series order, whichever goroutine met it
// first), and the stage keeps the error.
func TestMetricShardWriteErrorNamesTheSeries(t *testing.T) {
	d := manyMetrics(t, 200)
	ref, err := sequentialMetricShards(&stageFiles{mem: map[string][]byte{}}, d)
	if err != nil {
		t.Fatal(err)
	}
	// The first series of the pack holding series 23, and how many share it.
	path := ref.Metrics[23].Shard.Parts[0].Path
	first, n := -1, 0
	for i, m := range ref.Metrics {
		if m.Shard.Parts[0].Path == path {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n < 2 || ref.Metrics[150].Shard.Parts[0].Path == path {
		t.Fatalf("series 23 shares its pack with %d series, or with series 150", n)
	}
	want := fmt.Sprintf("metric series %d (m%d) and the %d after it in its pack", first, first%7, n-1)
	for _, workers := range []int{1, 2, 8} {
		dir := t.TempDir()
		for _, i := range []int{150, 23} {
			// A directory where the series' pack goes: its write fails.
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(ref.Metrics[i].Shard.Parts[0].Path)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		files := &stageFiles{dir: dir}
		_, err := stageMetricShards(files, d, workers)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), DetailDir) {
			t.Fatalf("%d workers: error %v, want one naming %q and its file", workers, err, want)
		}
		if files.err != err {
			t.Errorf("%d workers: the stage kept %v, want the write's error", workers, files.err)
		}
	}
}

// failingBlob is a summary the spool cannot give back.
type failingBlob struct{}

func (failingBlob) Len() int               { return 10 }
func (failingBlob) Bytes() ([]byte, error) { return nil, errors.New("summary spool: read failed") }

// A summary that cannot be read fails the build naming its series, and the
// previous report stays as it was.
func TestUnreadableSummaryKeepsPreviousReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := Write(withMetrics(t, dataset("first")), assets(t), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	d := manyMetrics(t, 40)
	d.Metrics[31].Summary.Payload = failingBlob{}
	d.Metrics[33].Summary = nil
	_, err := Write(d, assets(t), dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "metric series 31 (m3): summary spool: read failed") {
		t.Fatalf("error %v, want one naming series 31", err)
	}
	previousReportKept(t, dir, before)
}

// BenchmarkStageMetricShards stages 6,000 summaries of ~10 KB (a
// 100M-sample capture's shape) on one goroutine and on one per core.
func BenchmarkStageMetricShards(b *testing.B) {
	d := manyMetrics(b, 6000)
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				dir := b.TempDir()
				b.StartTimer()
				if _, err := stageMetricShards(&stageFiles{dir: dir}, d, workers); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				os.RemoveAll(dir)
				b.StartTimer()
			}
		})
	}
}
