package importer

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsight/dsight/tools/gen/synth"
)

// countingFile counts the bytes read from one open file.
type countingFile struct {
	file
	n *atomic.Int64
}

func (f countingFile) Read(p []byte) (int, error) {
	n, err := f.file.Read(p)
	f.n.Add(int64(n))
	return n, err
}

func (f countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.file.ReadAt(p, off)
	f.n.Add(int64(n))
	return n, err
}

// opens records every file a build opens and how much it read of it, and
// then removes the file's name: the open file stays readable, and any
// second open of it by path, through the build's opener or not, fails.
type opens struct {
	mu    sync.Mutex
	count map[string]int
	bytes map[string]*atomic.Int64
}

func (o *opens) open(path string) (file, error) {
	f, err := openOS(path)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil {
		f.Close()
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.count[path]++
	if o.bytes[path] == nil {
		o.bytes[path] = &atomic.Int64{}
	}
	return countingFile{f, o.bytes[path]}, nil
}

// Every source file of a run is opened exactly once per build, with and
// without a client export (which used to read the metric sources once more
// to find the window), and no file is opened that is not registered: a
// file's name is gone once it is open, so a second open by path fails the
// build. A file
// read from start to end (logs, exports, configuration) is read exactly
// once: one pass over a worker log serves both its server evidence and its
// log metrics. A capture's bytes are hashed, and its timestamps inspected
// before its full read, through the one open file.
func TestEveryFileIsOpenedOnce(t *testing.T) {
	server := synth.SourceFrontend | synth.SourceOTel | synth.SourceWorkers | synth.SourceSGLang | synth.SourceTokenSpeed | synth.SourceTachometer
	for _, c := range []struct {
		name    string
		sources synth.Sources
	}{
		{"aiperf", synth.SourceAIPerf | server},
		{"agentperf", synth.SourceAgentPerf | server},
		{"no client", server},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if _, err := synth.WriteRun(dir, synth.Config{Seed: 3, Requests: 120, Timezone: "UTC", Sources: c.sources}); err != nil {
				t.Fatal(err)
			}
			o := &opens{count: map[string]int{}, bytes: map[string]*atomic.Int64{}}
			res, err := Import(Options{Run: dir, IterationTimezone: time.UTC, open: o.open})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Dataset
			kinds := map[string]int{}
			registered := map[string]bool{}
			for _, s := range d.Sources {
				kinds[s.Kind]++
				p := filepath.Join(dir, filepath.FromSlash(s.Path))
				registered[p] = true
				if n := o.count[p]; n != 1 {
					t.Errorf("%s (%s) opened %d times", s.Path, s.Kind, n)
				}
				read := o.bytes[p].Load()
				switch {
				case s.Kind == "tachometer_raw":
					t.Logf("%s: %d bytes, %d read through its one open", s.Path, s.Bytes, read)
				case read != s.Bytes:
					t.Errorf("%s (%s): read %d bytes of %d", s.Path, s.Kind, read, s.Bytes)
				}
			}
			for p, n := range o.count {
				if !registered[p] {
					t.Errorf("%s opened %d times and not registered", p, n)
				}
			}
			for _, k := range []string{"frontend_log", "worker_log", "otel", "tachometer_raw", "collector_config"} {
				if kinds[k] == 0 {
					t.Errorf("the run has no %s source: %v", k, kinds)
				}
			}
			if c.sources&(synth.SourceAIPerf|synth.SourceAgentPerf) != 0 && kinds["client"] != 1 {
				t.Errorf("client sources: %v", kinds)
			}
			if len(d.Metrics) == 0 || d.Audit["metric_points"] == 0 {
				t.Errorf("no metrics read: %v", d.Audit)
			}
		})
	}
}
