package synth

import (
	"io"
	"testing"
	"time"
)

func BenchmarkNewPlan100k(b *testing.B) {
	for b.Loop() {
		if _, err := NewPlan(Config{Seed: 1, Requests: 100_000}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "requests/s")
}

func BenchmarkWriteAIPerf100k(b *testing.B) {
	p, err := NewPlan(Config{Seed: 1, Requests: 100_000})
	if err != nil {
		b.Fatal(err)
	}
	n, _, err := WriteAIPerf(io.Discard, p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	for b.Loop() {
		if _, _, err := WriteAIPerf(io.Discard, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkWriteOTel100k renders the trace export of a 100,000-request run
// (about two million spans).
func BenchmarkWriteOTel100k(b *testing.B) {
	p, err := NewPlan(Config{Seed: 1, Requests: 100_000, Sources: DefaultSources})
	if err != nil {
		b.Fatal(err)
	}
	sv := newServing(p)
	var spans int64
	cw := &countingWriter{w: io.Discard}
	for b.Loop() {
		cw.n = 0
		if _, spans, err = writeOTel(cw, sv); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(cw.n)
	b.ReportMetric(float64(spans)*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
}

// BenchmarkWriteWorkerLogs100k renders every worker log of a
// 100,000-request run, occupancy included.
func BenchmarkWriteWorkerLogs100k(b *testing.B) {
	p, err := NewPlan(Config{Seed: 1, Requests: 100_000, Sources: DefaultSources})
	if err != nil {
		b.Fatal(err)
	}
	sv := newServing(p)
	var lines int64
	for b.Loop() {
		occ := newOccupancy(sv)
		lines = 0
		for w := range sv.d.workers {
			for h := range sv.d.workers[w].hosts {
				n, err := writeWorkerLog(io.Discard, sv, occ, w, h, time.UTC)
				if err != nil {
					b.Fatal(err)
				}
				lines += n
			}
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkCapture writes final.parquet for a 100,000-request run.
func BenchmarkCapture100k(b *testing.B) {
	p, err := NewPlan(Config{Seed: 1, Requests: 100_000, Sources: DefaultSources})
	if err != nil {
		b.Fatal(err)
	}
	sv := newServing(p)
	c := newCapture(sv, newOccupancy(sv))
	var rows int64
	for b.Loop() {
		if rows, err = c.writeFinal(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
