package metrics

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/dsight/dsight/tools/gen/synth"
)

// BenchmarkRead reads a run's capture and worker logs into encoded series
// summaries, reporting the cost per sample.
func BenchmarkRead(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "run")
	sum, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 2000, Timezone: "UTC", Sources: synth.DefaultSources | synth.SourceTokenSpeed})
	if err != nil {
		b.Fatal(err)
	}
	logDir := filepath.Join(dir, "logs")
	workers, _ := filepath.Glob(filepath.Join(logDir, "*_w*.out"))
	var samples, bytes int64
	b.ResetTimer()
	for range b.N {
		reg := &registry{}
		r, err := Read(Options{LogDir: logDir, WorkerLogs: workers, Location: time.UTC, OriginNS: sum.StartNS, LastNS: sum.EndNS, Register: reg.register})
		if err != nil {
			b.Fatal(err)
		}
		samples, bytes = 0, 0
		for _, s := range r.Series {
			samples += s.Samples
			bytes += int64(s.Summary.Payload.Len())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*samples), "ns/sample")
	b.ReportMetric(float64(bytes)/float64(samples), "encoded-B/sample")
}

// BenchmarkReadCapture reads a one-million-sample capture into encoded
// series summaries, through the spill and through the in-memory reference,
// reporting the capture bytes read per second and the bytes allocated per
// sample (the spill's should not grow with the capture).
func BenchmarkReadCapture(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "run")
	sum, err := synth.WriteRun(dir, synth.Config{Seed: 1, Requests: 20_000, Timezone: "UTC", Sources: synth.SourceTachometer, Samples: 2_000_000})
	if err != nil {
		b.Fatal(err)
	}
	logDir := filepath.Join(dir, "logs")
	files, _ := filepath.Glob(filepath.Join(logDir, "tachometer", "local", "*", "*"))
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	var spill *spillStore
	for _, tc := range []struct {
		name  string
		store func() (pointStore, error)
	}{
		{"spill", func() (pointStore, error) {
			var err error
			spill, err = newSpillStore(0)
			return spill, err
		}},
		{"memory", func() (pointStore, error) { return &memStore{}, nil }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var samples int64
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for range b.N {
				res := &Result{Audit: map[string]int64{}}
				reg := &registry{}
				_, out, err := readCaptureInto(Options{LogDir: logDir, OriginNS: sum.StartNS, LastNS: sum.EndNS, Register: reg.register}, res, tc.store)
				if err != nil {
					b.Fatal(err)
				}
				samples = 0
				for _, s := range out {
					samples += s.meta.Samples
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.SetBytes(size)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(int64(b.N)*samples), "alloc-B/sample")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*samples), "ns/sample")
			if tc.name == "spill" {
				b.ReportMetric(float64(spill.blocks*int64(spill.blockSize))/float64(samples), "spilled-B/sample")
			}
		})
	}
}
