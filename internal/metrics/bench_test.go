package metrics

import (
	"path/filepath"
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
			bytes += int64(len(s.Pyramid))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*samples), "ns/sample")
	b.ReportMetric(float64(bytes)/float64(samples), "encoded-B/sample")
}
