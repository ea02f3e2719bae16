package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsight/dsight/internal/query"
	"github.com/dsight/dsight/internal/report"
	"github.com/dsight/dsight/tools/gen/synth"
)

// countingDiscard counts the bytes of a trace without keeping them.
type countingDiscard struct{ n int64 }

func (c *countingDiscard) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkExportPerfetto times the Perfetto export of a traced run once
// its shards are loaded, and reports the trace's size. The run is a
// generated 2,000-request one, or the report DSIGHT_PERFETTO_REPORT names
// (the issue's figure is for a 100,000-request run: `go run ./tools/gen
// -requests 100000 -out RUN`, `dsight build RUN -o REPORT`).
func BenchmarkExportPerfetto(b *testing.B) {
	path := os.Getenv("DSIGHT_PERFETTO_REPORT")
	if path == "" {
		dir := b.TempDir()
		run := filepath.Join(dir, "run")
		if _, err := synth.WriteRun(run, synth.Config{Seed: 9, Requests: 2000}); err != nil {
			b.Fatal(err)
		}
		path = filepath.Join(dir, "report")
		if err := build([]string{run, "-o", path}, io.Discard); err != nil {
			b.Skip("report not built (page assets missing? run `make assets`): ", err)
		}
	}
	core, dir, err := report.OpenDir(path)
	if err != nil {
		b.Fatal(err)
	}
	e, err := query.New(core)
	if err != nil {
		b.Fatal(err)
	}
	if err := loadForPerfetto(e, core, dir); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var size int64
	cpu := processCPU()
	for range b.N {
		c := &countingDiscard{}
		if err := e.WritePerfetto(c); err != nil {
			b.Fatal(err)
		}
		size = c.n
	}
	// On a loaded machine the process's CPU time says what an export costs
	// better than the wall clock (it counts the collector's and every
	// goroutine's work on any core).
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(size)/1e6, "MB/trace")
	b.ReportMetric(float64(core.Requests.N), "requests")
}
